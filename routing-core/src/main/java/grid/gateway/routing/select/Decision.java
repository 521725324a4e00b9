package grid.gateway.routing.select;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.BackendCluster;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;

/**
 * A selection with the reasons the selector had for it (docs/design.md §6): what {@code /route/explain} shows.
 *
 * <p>Thread-safe (immutable).
 *
 * @param selection the chosen cluster, the outcome and its run
 * @param ordered the candidates in the selector's order by load (ties as drawn)
 * @param runs each ordered candidate's run, in the same order; empty when the selector did not look them up
 *     (an unkeyed or exploring request)
 * @param longestRun the longest of {@code runs} (0 when none were looked up)
 * @param sticky whether the longest run is sticky ({@link StickyRule}); the sticky set is every candidate whose run is
 *     the longest
 * @param gate the load gate's arithmetic, when a sticky set was weighed against another candidate
 */
public record Decision(
        Selection selection,
        List<Candidate> ordered,
        List<Integer> runs,
        int longestRun,
        boolean sticky,
        Optional<Gate> gate) {
    public Decision {
        requireNonNull(selection, "selection");
        ordered = List.copyOf(ordered);
        runs = List.copyOf(runs);
        requireNonNull(gate, "gate");
        if (!runs.isEmpty() && runs.size() != ordered.size()) {
            throw new IllegalArgumentException("one run per ordered candidate");
        }
    }

    /**
     * The load gate weighing the least-queued sticky cluster against the least-queued other candidate.
     *
     * @param sticky the least-queued sticky cluster
     * @param other the least-queued candidate outside the sticky set
     * @param run the sticky set's run, in blocks
     * @param weighing the arithmetic and its verdict
     */
    public record Gate(BackendCluster sticky, BackendCluster other, int run, LoadGate.Weighing weighing) {
        public Gate {
            requireNonNull(sticky, "sticky");
            requireNonNull(other, "other");
            requireNonNull(weighing, "weighing");
        }
    }

    /** The clusters of the sticky set, in load order; empty when the longest run is not sticky. */
    public List<BackendCluster> stickySet() {
        if (!sticky) {
            return List.of();
        }
        return IntStream.range(0, runs.size())
                .filter(i -> runs.get(i) == longestRun)
                .mapToObj(i -> ordered.get(i).cluster())
                .toList();
    }
}

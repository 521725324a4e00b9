package grid.gateway.routing.select;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * Picks one of a request's candidates (docs/design.md §6):
 *
 * <pre>
 *   one candidate                 → it (no outcome: counts nothing)
 *   order by windowed worst queue depth (in seconds with measured queued-request costs), unmeasured after
 *   measured, then (count_sent_since_scrape) by how full the batch is, ties at random
 *   2% of requests                → first by load            (explore)
 *   no keys                       → first by load            (unkeyed)
 *   longest run not sticky        → first by load            (miss)
 *   load gate reopens sticky set  → first by load            (load)
 *   otherwise                     → least-queued sticky one  (hit)
 * </pre>
 *
 * <p>With {@code load.order_by: expected_wait} ({@link LoadOrder#EXPECTED_WAIT}) "by load" means by the time to first
 * token each candidate is expected to give this request ({@link ExpectedWait}), measured first, then by how full the
 * batch is, ties at random; the outcomes are the same, and the gate is the order itself:
 *
 * <pre>
 *   2% of requests / no keys / longest run not sticky  → first            (explore / unkeyed / miss)
 *   first holds the longest run                        → first            (hit)
 *   otherwise                                          → first            (load: another answers sooner)
 * </pre>
 *
 * <p>Thread-safe: stateless apart from the injected random source, which must be thread-safe itself.
 */
public final class CandidateSelector {
    private static final Comparator<Candidate> BY_LOAD = Comparator.comparing(Candidate::isMeasured)
            .reversed()
            .thenComparingDouble(Candidate::queueCost)
            .thenComparingDouble(Candidate::busyShare);

    private static final Comparator<Ranked> BY_EXPECTED_WAIT = Comparator.comparing(Ranked::isMeasured)
            .reversed()
            .thenComparingDouble(Ranked::seconds)
            .thenComparingDouble(Ranked::busyShare);

    private final RandomGenerator random;

    /** A selector drawing exploration and tie-breaks from {@code random}. */
    public CandidateSelector(RandomGenerator random) {
        this.random = requireNonNull(random, "random");
    }

    /** Chooses among {@code candidates} (admitted, serving the model; at least one). */
    public Selection select(
            List<Candidate> candidates, BlockKeys keys, RunLookup runs, PrefixAffinitySettings settings) {
        if (candidates.isEmpty()) {
            throw new IllegalArgumentException("no candidates");
        }
        if (candidates.size() == 1) {
            Candidate only = candidates.getFirst();
            return new Selection(only.cluster(), Optional.empty(), runOf(only, keys, runs));
        }
        List<Candidate> ordered = orderByLoad(candidates);
        Candidate first = ordered.getFirst();
        if (Exploration.explores(random)) {
            return chosen(first, AffinityOutcome.EXPLORE, runOf(first, keys, runs));
        }
        if (keys.isEmpty()) {
            return chosen(first, AffinityOutcome.UNKEYED, 0);
        }
        int[] run = new int[ordered.size()];
        int longest = 0;
        for (int i = 0; i < run.length; i++) {
            run[i] = runs.run(ordered.get(i).cluster().id(), keys);
            longest = Math.max(longest, run[i]);
        }
        if (!StickyRule.isSticky(longest, keys.size())) {
            return chosen(first, AffinityOutcome.MISS, run[0]);
        }
        int sticky = indexOf(run, longest, true);
        int other = indexOf(run, longest, false);
        if (other >= 0 && LoadGate.reopens(ordered.get(sticky), ordered.get(other), longest, settings)) {
            return chosen(first, AffinityOutcome.LOAD, run[0]);
        }
        return chosen(ordered.get(sticky), AffinityOutcome.HIT, longest);
    }

    /** Chooses among {@code candidates} in {@code order}; {@link LoadOrder#DEPTH} is the seed's selection above. */
    public Selection select(
            List<Candidate> candidates,
            BlockKeys keys,
            RunLookup runs,
            PrefixAffinitySettings settings,
            LoadOrder order) {
        if (order == LoadOrder.DEPTH || candidates.size() <= 1) {
            return select(candidates, keys, runs, settings);
        }
        List<Ranked> ranked = new ArrayList<>();
        int longest = 0;
        for (Candidate candidate : candidates) {
            int run = runOf(candidate, keys, runs);
            longest = Math.max(longest, run);
            ranked.add(new Ranked(candidate, run, ExpectedWait.seconds(candidate, keys.size(), run, settings)));
        }
        Ranked first = shuffleTies(ranked, BY_EXPECTED_WAIT).getFirst();
        if (Exploration.explores(random)) {
            return chosen(first.candidate(), AffinityOutcome.EXPLORE, first.run());
        }
        if (keys.isEmpty()) {
            return chosen(first.candidate(), AffinityOutcome.UNKEYED, 0);
        }
        if (!StickyRule.isSticky(longest, keys.size())) {
            return chosen(first.candidate(), AffinityOutcome.MISS, first.run());
        }
        AffinityOutcome outcome = first.run() == longest ? AffinityOutcome.HIT : AffinityOutcome.LOAD;
        return chosen(first.candidate(), outcome, first.run());
    }

    /** A candidate with its run of the request's blocks and the time to first token it is expected to give. */
    private record Ranked(Candidate candidate, int run, double seconds) {
        boolean isMeasured() {
            return candidate.isMeasured();
        }

        double busyShare() {
            return candidate.busyShare();
        }
    }

    /**
     * Candidates by windowed worst queue depth, measured first. Equal ones are shuffled by drawing, for each
     * position of a tie, which of the remaining tied candidates takes it (a draw of 0 keeps config order).
     */
    public List<Candidate> orderByLoad(List<Candidate> candidates) {
        return shuffleTies(candidates, BY_LOAD);
    }

    /** {@code items} sorted by {@code order}, each run of equal ones shuffled as {@link #orderByLoad} says. */
    private <T> List<T> shuffleTies(List<T> items, Comparator<T> order) {
        List<T> ordered = new ArrayList<>(items);
        ordered.sort(order);
        int start = 0;
        while (start < ordered.size()) {
            int end = start + 1;
            while (end < ordered.size() && order.compare(ordered.get(start), ordered.get(end)) == 0) {
                end++;
            }
            for (int i = start; i < end - 1; i++) {
                int j = i + random.nextInt(end - i);
                ordered.set(j, ordered.set(i, ordered.get(j)));
            }
            start = end;
        }
        return ordered;
    }

    private static int indexOf(int[] run, int longest, boolean sticky) {
        for (int i = 0; i < run.length; i++) {
            if ((run[i] == longest) == sticky) {
                return i;
            }
        }
        return -1;
    }

    private static int runOf(Candidate candidate, BlockKeys keys, RunLookup runs) {
        return keys.isEmpty() ? 0 : runs.run(candidate.cluster().id(), keys);
    }

    private static Selection chosen(Candidate candidate, AffinityOutcome outcome, int run) {
        return new Selection(candidate.cluster(), Optional.of(outcome), run);
    }
}

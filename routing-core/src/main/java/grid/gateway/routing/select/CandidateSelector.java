package grid.gateway.routing.select;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
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
 * batch is, ties at random; the outcomes are the same, and the gate is the order
 * itself with a margin for the estimates' error:
 *
 * <pre>
 *   (not sticky, and no candidate with a free slot: ordered by wait alone, without its own prefill)
 *   2% of requests / no keys                           → first            (explore / unkeyed)
 *   longest run not sticky                             → of those within 1.25 × the first's time, the one whose
 *                                                        cache keeps prefixes longest, else first  (miss)
 *   first holds the longest run                        → first            (hit)
 *   the soonest sticky one, within 1.25 × the first's  → it              (hit: {@link ExpectedWait#stays})
 *   otherwise                                          → first            (load: another answers much sooner)
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

    /** A source that draws 0 every time: ties keep config order. It holds no state. */
    private static final RandomGenerator NO_DRAW = () -> 0L;

    private final RandomGenerator random;

    /** A selector drawing exploration and tie-breaks from {@code random}. */
    public CandidateSelector(RandomGenerator random) {
        this.random = requireNonNull(random, "random");
    }

    /** Chooses among {@code candidates} (admitted, serving the model; at least one). */
    public Selection select(
            List<Candidate> candidates, BlockKeys keys, RunLookup runs, PrefixAffinitySettings settings) {
        return choose(candidates, keys, runs, settings, live(LoadOrder.DEPTH)).selection();
    }

    /**
     * What {@link #select} would decide, with its reasons, drawing nothing from the random source: ties keep config
     * order and the request does not explore (the 2% that do go first by load).
     */
    public Decision explain(
            List<Candidate> candidates, BlockKeys keys, RunLookup runs, PrefixAffinitySettings settings) {
        return choose(candidates, keys, runs, settings, drawingNothing(LoadOrder.DEPTH));
    }

    /** Chooses among {@code candidates} in {@code order}; {@link LoadOrder#DEPTH} is the seed's selection above. */
    public Selection select(
            List<Candidate> candidates,
            BlockKeys keys,
            RunLookup runs,
            PrefixAffinitySettings settings,
            LoadOrder order) {
        return choose(candidates, keys, runs, settings, live(order)).selection();
    }

    /** What {@link #select(List, BlockKeys, RunLookup, PrefixAffinitySettings, LoadOrder)} would decide, drawing nothing. */
    public Decision explain(
            List<Candidate> candidates,
            BlockKeys keys,
            RunLookup runs,
            PrefixAffinitySettings settings,
            LoadOrder order) {
        return choose(candidates, keys, runs, settings, drawingNothing(order));
    }

    private Way live(LoadOrder order) {
        return new Way(order, random, () -> Exploration.explores(random));
    }

    private static Way drawingNothing(LoadOrder order) {
        return new Way(order, NO_DRAW, () -> false);
    }

    /** The seed's selection in {@link LoadOrder#DEPTH}, and for a single candidate (which draws nothing). */
    private Decision choose(
            List<Candidate> candidates, BlockKeys keys, RunLookup runs, PrefixAffinitySettings settings, Way way) {
        if (way.order() == LoadOrder.DEPTH || candidates.size() <= 1) {
            return decide(candidates, keys, runs, settings, way);
        }
        return byExpectedWait(candidates, keys, runs, settings, way);
    }

    /**
     * The {@code expected_wait} order: candidates by the time to first token each is expected to give; the first one
     * serves. There is no gate to weigh: the queue is already priced into each candidate's wait.
     */
    private Decision byExpectedWait(
            List<Candidate> candidates, BlockKeys keys, RunLookup runs, PrefixAffinitySettings settings, Way way) {
        List<Ranked> ranked = new ArrayList<>();
        int longest = 0;
        int[] run = new int[candidates.size()];
        for (int i = 0; i < run.length; i++) {
            run[i] = runOf(candidates.get(i), keys, runs);
            longest = Math.max(longest, run[i]);
        }
        boolean sticky = StickyRule.isSticky(longest, keys.size());
        // A request that keeps nothing, when no candidate has a free slot, goes by wait alone (ExpectedWait.saturated).
        boolean waitAlone = !sticky && ExpectedWait.saturated(candidates);
        for (int i = 0; i < run.length; i++) {
            Candidate candidate = candidates.get(i);
            // A request that is not sticky computes its whole prompt wherever it goes, as far as affinity is
            // concerned: a partial run (a shared system prompt) does not draw it, or every conversation sharing one
            // piles onto the cluster that holds it, and their own turns evict each other there.
            double seconds = waitAlone
                    ? ExpectedWait.waitSeconds(candidate, settings)
                    : ExpectedWait.seconds(candidate, keys, sticky ? run[i] : 0, settings);
            ranked.add(new Ranked(candidate, run[i], seconds));
        }
        List<Ranked> ordered = shuffleTies(ranked, BY_EXPECTED_WAIT, way.ties());
        Ranked first = ordered.getFirst();
        List<Candidate> order = ordered.stream().map(Ranked::candidate).toList();
        List<Integer> runList = ordered.stream().map(Ranked::run).toList();
        Selection selection;
        if (way.explores().getAsBoolean()) {
            selection = chosen(first.candidate(), AffinityOutcome.EXPLORE, first.run());
        } else if (keys.isEmpty()) {
            selection = chosen(first.candidate(), AffinityOutcome.UNKEYED, 0);
        } else if (!sticky) {
            Ranked roomiest = roomiest(ordered, runs);
            selection = chosen(roomiest.candidate(), AffinityOutcome.MISS, roomiest.run());
        } else if (first.run() == longest) {
            selection = chosen(first.candidate(), AffinityOutcome.HIT, first.run());
        } else {
            Optional<Ranked> stay = soonestSticky(ordered, longest, first.isMeasured())
                    .filter(r -> ExpectedWait.stays(r.seconds(), first.seconds()));
            selection = stay.isPresent()
                    ? chosen(
                            stay.get().candidate(),
                            AffinityOutcome.HIT,
                            stay.get().run())
                    : chosen(first.candidate(), AffinityOutcome.LOAD, first.run());
        }
        return new Decision(selection, order, runList, longest, sticky && !keys.isEmpty(), Optional.empty());
    }

    /**
     * Where a miss goes: of the candidates measured as the first and expected within {@link ExpectedWait#ROOM_FACTOR}
     * times its time, the one that keeps prefixes longest; the first of them in order among equals, so where no cache
     * is known to evict, the soonest.
     */
    private static Ranked roomiest(List<Ranked> ordered, RunLookup runs) {
        Ranked first = ordered.getFirst();
        Ranked best = first;
        long longest = runs.retentionNanos(first.candidate().cluster().id());
        for (Ranked r : ordered) { // a loop, not a stream: it runs for every miss
            if (r == first
                    || r.isMeasured() != first.isMeasured()
                    || r.seconds() > ExpectedWait.ROOM_FACTOR * first.seconds()) {
                continue;
            }
            long retention = runs.retentionNanos(r.candidate().cluster().id());
            if (retention > longest) {
                best = r;
                longest = retention;
            }
        }
        return best;
    }

    /** The first of {@code ordered} holding the longest run, measured as {@code measured}, if any. */
    private static Optional<Ranked> soonestSticky(List<Ranked> ordered, int longest, boolean measured) {
        return ordered.stream()
                .filter(r -> r.run() == longest && r.isMeasured() == measured)
                .findFirst();
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
        return orderByLoad(candidates, random);
    }

    /** {@link #orderByLoad} without a draw: ties keep config order. */
    public List<Candidate> explainOrder(List<Candidate> candidates) {
        return orderByLoad(candidates, NO_DRAW);
    }

    /**
     * How one call decides: in which order it ranks, where it draws its tie-breaks and whether it explores (drawn
     * after the order, as routing does).
     */
    private record Way(LoadOrder order, RandomGenerator ties, BooleanSupplier explores) {}

    private Decision decide(
            List<Candidate> candidates, BlockKeys keys, RunLookup runs, PrefixAffinitySettings settings, Way way) {
        if (candidates.isEmpty()) {
            throw new IllegalArgumentException("no candidates");
        }
        if (candidates.size() == 1) {
            Candidate only = candidates.getFirst();
            int run = runOf(only, keys, runs);
            Selection selection = new Selection(only.cluster(), Optional.empty(), run);
            return new Decision(selection, candidates, List.of(run), run, false, Optional.empty());
        }
        List<Candidate> ordered = orderByLoad(candidates, way.ties());
        Candidate first = ordered.getFirst();
        if (way.explores().getAsBoolean()) {
            return unweighed(ordered, chosen(first, AffinityOutcome.EXPLORE, runOf(first, keys, runs)));
        }
        if (keys.isEmpty()) {
            return unweighed(ordered, chosen(first, AffinityOutcome.UNKEYED, 0));
        }
        int[] run = new int[ordered.size()];
        int longest = 0;
        for (int i = 0; i < run.length; i++) {
            run[i] = runs.run(ordered.get(i).cluster().id(), keys);
            longest = Math.max(longest, run[i]);
        }
        List<Integer> runList = Arrays.stream(run).boxed().toList();
        if (!StickyRule.isSticky(longest, keys.size())) {
            Selection miss = chosen(first, AffinityOutcome.MISS, run[0]);
            return new Decision(miss, ordered, runList, longest, false, Optional.empty());
        }
        int sticky = indexOf(run, longest, true);
        int other = indexOf(run, longest, false);
        if (other < 0) {
            Selection hit = chosen(ordered.get(sticky), AffinityOutcome.HIT, longest);
            return new Decision(hit, ordered, runList, longest, true, Optional.empty());
        }
        LoadGate.Weighing weighing = LoadGate.weigh(ordered.get(sticky), ordered.get(other), longest, settings);
        Decision.Gate gate = new Decision.Gate(
                ordered.get(sticky).cluster(), ordered.get(other).cluster(), longest, weighing);
        Selection selection = weighing.reopens()
                ? chosen(first, AffinityOutcome.LOAD, run[0])
                : chosen(ordered.get(sticky), AffinityOutcome.HIT, longest);
        return new Decision(selection, ordered, runList, longest, true, Optional.of(gate));
    }

    private static Decision unweighed(List<Candidate> ordered, Selection selection) {
        return new Decision(selection, ordered, List.of(), 0, false, Optional.empty());
    }

    private static List<Candidate> orderByLoad(List<Candidate> candidates, RandomGenerator ties) {
        return shuffleTies(candidates, BY_LOAD, ties);
    }

    /** {@code items} sorted by {@code order}, each run of equal ones shuffled as {@link #orderByLoad} says. */
    private static <T> List<T> shuffleTies(List<T> items, Comparator<T> order, RandomGenerator ties) {
        List<T> ordered = new ArrayList<>(items);
        ordered.sort(order);
        int start = 0;
        while (start < ordered.size()) {
            int end = start + 1;
            while (end < ordered.size() && order.compare(ordered.get(start), ordered.get(end)) == 0) {
                end++;
            }
            for (int i = start; i < end - 1; i++) {
                int j = i + ties.nextInt(end - i);
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

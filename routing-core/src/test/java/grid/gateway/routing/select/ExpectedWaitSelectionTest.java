package grid.gateway.routing.select;

import static grid.gateway.routing.select.CandidateSelectorTest.blocks;
import static grid.gateway.routing.select.CandidateSelectorTest.cluster;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.load.ClusterPrices;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.time.ScriptedRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code load.order_by: expected_wait}: each rule of {@link CandidateSelector}'s expected-wait order as one row of data
 * (candidates in, cluster and outcome out), and a reference model showing that with one price for every cluster the
 * order leaves the sticky set only when another cluster is expected {@link ExpectedWait#LEAVE_FACTOR} times sooner,
 * never where the seed's gate keeps it.
 */
class ExpectedWaitSelectionTest {
    private static final PrefixAffinitySettings DEFAULTS = PrefixAffinitySettings.defaults();

    /**
     * One candidate of a row: {@code queue} < 0 is unmeasured; {@code prefill} and {@code queued} 0 mean the configured
     * numbers (10,000 tokens/s, 2 s).
     */
    record C(String name, double queue, double prefill, double queued, double backlog, int run) {
        Candidate candidate() {
            Optional<ClusterPrices> prices = prefill > 0
                    ? Optional.of(new ClusterPrices(prefill, queued, OptionalInt.empty(), true, true))
                    : Optional.empty();
            OptionalDouble depth = queue < 0 ? OptionalDouble.empty() : OptionalDouble.of(queue);
            return new Candidate(cluster(name), depth, prices, 0, backlog);
        }
    }

    private static C c(String name, double queue, double prefill, double queued, double backlog, int run) {
        return new C(name, queue, prefill, queued, backlog, run);
    }

    static Stream<Arguments> rules() {
        return Stream.of(
                // The first turn of a long conversation (400 blocks, 25,600 tokens) on a grid of one fast and one slow
                // cluster, both idle: 1.28 s against 12.8 s. Depth order cannot tell them apart.
                Arguments.of(
                        "miss: an idle fast cluster before an idle slow one",
                        400,
                        List.of(c("east-a", 0, 2_000, 0.5, 0, 0), c("west-a", 0, 20_000, 0.5, 0, 0)),
                        "west-a",
                        AffinityOutcome.MISS),
                // 4 queued × 0.5 s = 2 s + 1.28 s at the fast one, against 12.8 s at the slow one.
                Arguments.of(
                        "miss: a short queue at the fast cluster still answers sooner",
                        400,
                        List.of(c("east-a", 0, 2_000, 0.5, 0, 0), c("west-a", 4, 20_000, 0.5, 0, 0)),
                        "west-a",
                        AffinityOutcome.MISS),
                // 10 blocks (640 tokens): 0.32 s at the idle slow one, 3 s + 0.032 s behind the fast one's queue.
                Arguments.of(
                        "miss: a small prompt takes the idle slow cluster",
                        10,
                        List.of(c("east-a", 0, 2_000, 0.5, 0, 0), c("west-a", 6, 20_000, 0.5, 0, 0)),
                        "east-a",
                        AffinityOutcome.MISS),
                // The backlog (4 s of prompts this replica sent) holds a request up though nothing waits for a slot.
                Arguments.of(
                        "miss: a prefill backlog counts though nothing waits for a slot",
                        100,
                        List.of(c("east-a", 0, 10_000, 2, 4, 0), c("west-a", 1, 10_000, 2, 0, 0)),
                        "west-a",
                        AffinityOutcome.MISS),
                // 2 × 2 s + 1 s, against 0 + 3 s (+ 0.64 s each): the queue and the backlog add up.
                Arguments.of(
                        "miss: the queue and the backlog add up",
                        100,
                        List.of(c("east-a", 2, 10_000, 2, 1, 0), c("west-a", 0, 10_000, 2, 4.5, 0)),
                        "west-a",
                        AffinityOutcome.MISS),
                // Run 390 of 400: the sticky slow cluster computes 640 tokens (0.32 s) after 0.5 s of queue; the idle
                // fast one would compute all 25,600 (1.28 s).
                Arguments.of(
                        "hit: the sticky slow cluster, its queue shorter than the prefill saved",
                        400,
                        List.of(c("east-a", 1, 2_000, 0.5, 0, 390), c("west-a", 0, 20_000, 0.5, 0, 0)),
                        "east-a",
                        AffinityOutcome.HIT),
                // 6 s of queue at the sticky one, against 1.28 s of prefill at the idle fast one.
                Arguments.of(
                        "load: another cluster answers sooner than the sticky one",
                        400,
                        List.of(c("east-a", 12, 2_000, 0.5, 0, 390), c("west-a", 0, 20_000, 0.5, 0, 0)),
                        "west-a",
                        AffinityOutcome.LOAD),
                // 2 × 2 s + 10 × 64 ÷ 10,000 = 4.064 s at the sticky one, 1 s of backlog + 2.56 s at the other:
                // the other is sooner, but not 1.25 × sooner (4.45 s), so the request keeps its cache.
                Arguments.of(
                        "hit: another expected sooner, but within the margin, keeps the sticky cluster",
                        400,
                        List.of(c("east-a", 2, 10_000, 2, 0, 390), c("west-a", 0, 10_000, 2, 1, 0)),
                        "east-a",
                        AffinityOutcome.HIT),
                // The same with 0.5 s of backlog: 3.06 × 1.25 = 3.83 s < 4.064 s, so it leaves.
                Arguments.of(
                        "load: another expected more than 1.25 × sooner",
                        400,
                        List.of(c("east-a", 2, 10_000, 2, 0, 390), c("west-a", 0, 10_000, 2, 0.5, 0)),
                        "west-a",
                        AffinityOutcome.LOAD),
                // Two sticky clusters: the one expected sooner; the shorter partial run elsewhere is priced too.
                Arguments.of(
                        "hit: the sticky cluster expected sooner",
                        400,
                        List.of(
                                c("east-a", 4, 10_000, 2, 0, 390),
                                c("east-b", 1, 10_000, 2, 0, 390),
                                c("west-a", 2, 10_000, 2, 0, 200)),
                        "east-b",
                        AffinityOutcome.HIT),
                Arguments.of(
                        "load: a partial run elsewhere, expected sooner, wins",
                        400,
                        List.of(c("east-a", 4, 10_000, 2, 0, 390), c("west-a", 0, 10_000, 2, 0, 200)),
                        "west-a",
                        AffinityOutcome.LOAD),
                Arguments.of(
                        "load: an unmeasured sticky cluster gives way to a measured other",
                        400,
                        List.of(c("east-a", -1, 0, 0, 0, 390), c("west-a", 9, 0, 0, 0, 0)),
                        "west-a",
                        AffinityOutcome.LOAD),
                Arguments.of(
                        "hit: a measured sticky cluster is never compared with an unmeasured other",
                        400,
                        List.of(c("east-a", 9, 0, 0, 0, 390), c("west-a", -1, 0, 0, 0, 0)),
                        "east-a",
                        AffinityOutcome.HIT),
                // No free slot anywhere: 2 × 0.5 s at the fast one against 1 × 0.9 s at the slow one; their own
                // prefill (0.32 s against 3.2 s for 6,400 tokens) is left out (ExpectedWait.saturated).
                Arguments.of(
                        "miss: no candidate with a free slot, by wait alone",
                        100,
                        List.of(c("east-a", 2, 20_000, 0.5, 0, 0), c("west-a", 1, 2_000, 0.9, 0, 0)),
                        "west-a",
                        AffinityOutcome.MISS),
                // The same with the slow one's line empty: 1 s + 0.32 s against 0 + 3.2 s, the own prefill counts.
                Arguments.of(
                        "miss: a candidate with a free slot, the own prefill counts",
                        100,
                        List.of(c("east-a", 2, 20_000, 0.5, 0, 0), c("west-a", 0, 2_000, 0.9, 0, 0)),
                        "east-a",
                        AffinityOutcome.MISS),
                // No free slot anywhere, but the request is sticky: 4 s + 0.064 s at the sticky one against 2 s +
                // 2.56 s at the other, which would have to compute the whole prompt. Priced by wait alone it would
                // leave (2 × 1.25 < 4).
                Arguments.of(
                        "hit: no candidate with a free slot, a sticky request still prices its prefill",
                        400,
                        List.of(c("east-a", 2, 10_000, 2, 0, 390), c("west-a", 1, 10_000, 2, 0, 0)),
                        "east-a",
                        AffinityOutcome.HIT),
                Arguments.of(
                        "unkeyed: by wait alone",
                        0,
                        List.of(c("east-a", 1, 20_000, 2, 0, 0), c("west-a", 0, 2_000, 0.5, 1.5, 0)),
                        "west-a",
                        AffinityOutcome.UNKEYED));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rules")
    void select_expectedWait_row(String rule, int blocks, List<C> row, String cluster, AffinityOutcome outcome) {
        Map<String, Integer> runs = new HashMap<>();
        row.forEach(c -> runs.put(c.name(), c.run()));
        CandidateSelector selector = new CandidateSelector(ScriptedRandom.neverExploring());

        Selection chosen = selector.select(
                row.stream().map(C::candidate).toList(),
                blocks(blocks),
                (id, keys) -> runs.get(id.name()),
                DEFAULTS,
                LoadOrder.EXPECTED_WAIT);

        assertThat(chosen.cluster().id().name()).isEqualTo(cluster);
        assertThat(chosen.outcome()).contains(outcome);
        assertThat(chosen.run()).isEqualTo(blocks == 0 ? 0 : runs.get(cluster));
    }

    /**
     * A 1,500-block prompt (96,000 tokens) the keyer keyed to 512 blocks: {@code run} of them held at east-a (2,000
     * tokens/s, {@code eastBacklog} s), none at west-a (20,000 tokens/s, {@code westBacklog} s).
     */
    private static Selection longPrompt(int run, double eastBacklog, double westBacklog) {
        BlockKeys keys = blocks(512).withPromptBlocks(1_500);
        List<Candidate> row = List.of(
                c("east-a", 0, 2_000, 0.5, eastBacklog, run).candidate(),
                c("west-a", 0, 20_000, 0.5, westBacklog, 0).candidate());
        return new CandidateSelector(ScriptedRandom.neverExploring())
                .select(row, keys, (id, k) -> id.name().equals("east-a") ? run : 0, DEFAULTS, LoadOrder.EXPECTED_WAIT);
    }

    @Test
    void longPrompt_runToTheLastKey_holdsTheUnkeyedRestToo() {
        // east-a: 3 s of backlog, nothing to compute; west-a: all 96,000 tokens, 4.8 s. Priced by the 512 keys alone,
        // west-a would compute 1.64 s and win.
        Selection chosen = longPrompt(512, 3, 0);
        assertThat(chosen.cluster().id().name()).isEqualTo("east-a");
        assertThat(chosen.outcome()).contains(AffinityOutcome.HIT);
    }

    @Test
    void longPrompt_runEndingEarlier_leavesTheWholeRestToCompute() {
        // east-a: (1,500 − 300) × 64 ÷ 2,000 = 38.4 s; west-a: 6 s + 4.8 s. Priced by the 512 keys alone, east-a would
        // compute 6.78 s against west-a's 7.64 s and keep it.
        Selection chosen = longPrompt(300, 0, 6);
        assertThat(chosen.cluster().id().name()).isEqualTo("west-a");
        assertThat(chosen.outcome()).contains(AffinityOutcome.LOAD);
    }

    @Test
    void uncachedBlocks_pricesWhatThePrefixCacheCannotHold() {
        BlockKeys cut = blocks(512).withPromptBlocks(1_500);
        assertThat(ExpectedWait.uncachedBlocks(cut, 512))
                .as("run to the last key")
                .isZero();
        assertThat(ExpectedWait.uncachedBlocks(cut, 300)).isEqualTo(1_200);
        assertThat(ExpectedWait.uncachedBlocks(cut, 0)).isEqualTo(1_500);
        assertThat(ExpectedWait.uncachedBlocks(blocks(100), 40))
                .as("keyed to its end")
                .isEqualTo(60);
        assertThat(ExpectedWait.uncachedBlocks(blocks(100), 100)).isZero();
        assertThat(blocks(100).withPromptBlocks(50).promptBlocks())
                .as("never fewer than the keys")
                .isEqualTo(100);
    }

    /**
     * A miss of 100 blocks (6,400 tokens) on two idle clusters: east-a prefills at 20,000 tokens/s (0.32 s), west-a at
     * {@code westPrefill}; each keeps a prefix nobody reuses for the given seconds (0: no sign of eviction).
     */
    private static Selection miss(double westPrefill, long eastKeepsSeconds, long westKeepsSeconds) {
        Map<String, Long> keeps = Map.of("east-a", eastKeepsSeconds, "west-a", westKeepsSeconds);
        RunLookup runs = new RunLookup() {
            @Override
            public int run(ClusterId cluster, BlockKeys keys) {
                return 0;
            }

            @Override
            public long retentionNanos(ClusterId cluster) {
                long seconds = keeps.get(cluster.name());
                return seconds == 0 ? Long.MAX_VALUE : seconds * 1_000_000_000L;
            }
        };
        List<Candidate> row = List.of(
                c("east-a", 0, 20_000, 0.5, 0, 0).candidate(),
                c("west-a", 0, westPrefill, 0.5, 0, 0).candidate());
        return new CandidateSelector(ScriptedRandom.neverExploring())
                .select(row, blocks(100), runs, DEFAULTS, LoadOrder.EXPECTED_WAIT);
    }

    @Test
    void miss_nearlyAsSoonWhereTheCacheKeepsPrefixesLonger_goesThere() {
        // 0.376 s at west-a, within 1.25 × 0.32 s = 0.4 s; east-a evicts after 60 s, west-a after 600 s.
        Selection chosen = miss(17_000, 60, 600);
        assertThat(chosen.cluster().id().name()).isEqualTo("west-a");
        assertThat(chosen.outcome()).contains(AffinityOutcome.MISS);
    }

    @Test
    void miss_noEvictionKnownAnywhere_goesToTheSoonest() {
        assertThat(miss(17_000, 0, 0).cluster().id().name()).isEqualTo("east-a");
        assertThat(miss(17_000, 600, 600).cluster().id().name())
                .as("equal retention")
                .isEqualTo("east-a");
        assertThat(miss(17_000, 60, 0).cluster().id().name())
                .as("only the later one known to evict")
                .isEqualTo("west-a");
    }

    @Test
    void miss_roomierButBeyondTheFactor_goesToTheSoonest() {
        // 0.64 s at west-a, beyond 0.4 s.
        Selection chosen = miss(10_000, 60, 600);
        assertThat(chosen.cluster().id().name()).isEqualTo("east-a");
        assertThat(chosen.outcome()).contains(AffinityOutcome.MISS);
    }

    @Test
    void select_explores_firstByExpectedWait() {
        ScriptedRandom random = ScriptedRandom.neverExploring().scriptDoubles(0.019);
        List<Candidate> row = List.of(
                c("east-a", 0, 2_000, 0.5, 0, 0).candidate(),
                c("west-a", 0, 20_000, 0.5, 0, 0).candidate());

        Selection chosen = new CandidateSelector(random)
                .select(row, blocks(400), (id, keys) -> 0, DEFAULTS, LoadOrder.EXPECTED_WAIT);

        assertThat(chosen.cluster().id().name()).isEqualTo("west-a");
        assertThat(chosen.outcome()).contains(AffinityOutcome.EXPLORE);
    }

    @Test
    void select_depthOrder_isTheSeedsSelection() {
        // The same slow-and-fast row under depth order: a tie on depth, config order (the draw of 0) decides.
        List<Candidate> row = List.of(
                c("east-a", 0, 2_000, 0.5, 0, 0).candidate(),
                c("west-a", 0, 20_000, 0.5, 0, 0).candidate());

        Selection chosen = new CandidateSelector(ScriptedRandom.neverExploring())
                .select(row, blocks(400), (id, keys) -> 0, DEFAULTS, LoadOrder.DEPTH);

        assertThat(chosen.cluster().id().name()).isEqualTo("east-a");
    }

    /**
     * Reference model: with the configured prices, no backlog and the other cluster holding none of the prompt, the
     * expected-wait order leaves the sticky cluster exactly when the other is expected more than
     * {@link ExpectedWait#LEAVE_FACTOR} times sooner (queue × 2 s + uncached × 64 ÷ 10,000), so never where the seed's
     * {@link LoadGate} keeps it: the margin only makes the gate reopen later.
     */
    @Test
    void select_samePricesEverywhere_leavesOnlyWhenTheOtherIsMuchSooner_andNeverWhereTheSeedsGateStays() {
        SplittableRandom draw = new SplittableRandom(12);
        int compared = 0;
        int laterThanTheSeed = 0;
        for (int i = 0; i < 2_000; i++) {
            double stickyQueue = draw.nextInt(8);
            double otherQueue = draw.nextInt(8);
            int blocks = 32 + draw.nextInt(600);
            int run = 32 + draw.nextInt(blocks - 31);
            double sticky = stickyQueue * 2 + (blocks - run) * 64 / 10_000.0;
            double other = otherQueue * 2 + blocks * 64 / 10_000.0;
            if (Math.abs(sticky - ExpectedWait.LEAVE_FACTOR * other) < 1e-9
                    || Math.abs(stickyQueue - otherQueue - LoadGate.worth(run, DEFAULTS)) < 1e-9) {
                continue; // an exact tie
            }
            List<Candidate> row = new ArrayList<>(List.of(
                    CandidateSelectorTest.measured("east-a", stickyQueue),
                    CandidateSelectorTest.measured("west-a", otherQueue)));
            Selection chosen = new CandidateSelector(ScriptedRandom.neverExploring())
                    .select(
                            row,
                            blocks(blocks),
                            (id, keys) -> id.name().equals("east-a") ? run : 0,
                            DEFAULTS,
                            LoadOrder.EXPECTED_WAIT);
            boolean leaves = sticky > ExpectedWait.LEAVE_FACTOR * other;
            boolean seedReopens =
                    LoadGate.reopens(OptionalDouble.of(stickyQueue), OptionalDouble.of(otherQueue), run, DEFAULTS);
            String what =
                    "sticky queue %s, other queue %s, run %d of %d".formatted(stickyQueue, otherQueue, run, blocks);
            assertThat(chosen.outcome()).as(what).contains(leaves ? AffinityOutcome.LOAD : AffinityOutcome.HIT);
            assertThat(!leaves || seedReopens)
                    .as("leaves only where the seed's gate reopens: " + what)
                    .isTrue();
            if (seedReopens && !leaves) {
                laterThanTheSeed++;
            }
            compared++;
        }
        assertThat(compared).isGreaterThan(1_900);
        assertThat(laterThanTheSeed).as("cases the margin keeps sticky").isPositive();
    }

    @Test
    void expectedWait_arithmetic() {
        Candidate slow = c("east-a", 3, 2_000, 0.5, 0, 0).candidate();
        // 3 × 0.5 s + (100 − 40) × 64 ÷ 2,000 = 1.5 + 1.92
        assertThat(ExpectedWait.seconds(slow, 100, 40, DEFAULTS)).isCloseTo(3.42, within(1e-9));
        Candidate configured = CandidateSelectorTest.measured("west-a", 3);
        // 3 × 2 s + 100 × 64 ÷ 10,000
        assertThat(ExpectedWait.seconds(configured, 100, 0, DEFAULTS)).isCloseTo(6.64, within(1e-9));
        Candidate backlogged = c("west-b", 1, 10_000, 2, 7.5, 0).candidate();
        assertThat(ExpectedWait.waitSeconds(backlogged, DEFAULTS)).isEqualTo(9.5);
        assertThat(ExpectedWait.seconds(c("west-c", -1, 0, 0, 0, 0).candidate(), 10, 10, DEFAULTS))
                .as("unmeasured: no queue, nothing to compute")
                .isZero();
    }

    @Test
    void saturated_onlyWhenEveryCandidateHasALine() {
        Candidate one = c("east-a", 1, 0, 0, 0, 0).candidate();
        Candidate three = c("east-b", 3, 0, 0, 0, 0).candidate();
        assertThat(ExpectedWait.saturated(List.of(one, three))).isTrue();
        assertThat(ExpectedWait.saturated(
                        List.of(three, c("west-a", 0.5, 0, 0, 0, 0).candidate())))
                .as("a line under one request: a slot may be free")
                .isFalse();
        assertThat(ExpectedWait.saturated(
                        List.of(three, c("west-b", -1, 0, 0, 0, 0).candidate())))
                .as("an unmeasured candidate")
                .isFalse();
        assertThat(ExpectedWait.saturated(
                        List.of(three, c("west-c", 0, 0, 0, 9, 0).candidate())))
                .as("a backlog is no line for a slot")
                .isFalse();
    }

    @Test
    void loadOrder_yamlWords() {
        assertThat(LoadOrder.of("depth")).isEqualTo(LoadOrder.DEPTH);
        assertThat(LoadOrder.of("expected_wait")).isEqualTo(LoadOrder.EXPECTED_WAIT);
        assertThat(LoadOrder.find("Depth")).isEmpty();
        assertThatThrownBy(() -> LoadOrder.of("ttft"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("order_by: ttft (expected: depth or expected_wait)");
    }

    @Test
    void select_oneCandidate_countsNothing() {
        Selection chosen = new CandidateSelector(ScriptedRandom.neverExploring())
                .select(
                        List.of(c("east-a", 0, 0, 0, 0, 5).candidate()),
                        blocks(10),
                        (id, keys) -> 5,
                        DEFAULTS,
                        LoadOrder.EXPECTED_WAIT);
        assertThat(chosen.outcome()).isEmpty();
        assertThat(chosen.run()).isEqualTo(5);
    }
}

package grid.gateway.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import grid.gateway.routing.select.AffinityOutcome;
import grid.gateway.routing.select.Exploration;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/**
 * The p90 decomposition: each cause is switched off around the real router (its rules unchanged), and the slowest
 * tenth of a run is broken down into what it waited for.
 */
class DecompositionTest {
    /**
     * 200 conversations: each test compares one run's hit rate with another's, so the trace must be large enough that
     * the cause switched off moves it more than a few misses placed elsewhere do (at 60 conversations the placement of
     * misses alone moves it by more than a percentage point, as much as some of these causes).
     */
    private static final Trace TRACE = TraceGenerator.generate(Workload.SHARED_CHAT, 200, 5);

    private static final FailedAnswers FAILURES = FailedAnswers.of(0.1, 5);

    private static RunResult run(Set<SimCause> off, FailedAnswers failures) {
        var spec = new Simulation.RunSpec(SimGrid.mixed(), TRACE, PolicyKind.GRID_SITE_ROUTE, 0.8, 11, 1, failures);
        GatewayTuning tuning =
                GatewayTuning.recommended(1.0, Duration.ofSeconds(2)).withSwitchedOff(off);
        return Simulation.run(spec, tuning);
    }

    @Test
    void neverExploring_sameDrawsForTies_noDoubleUnderTheExplorationShare() {
        RandomGenerator plain = new SplittableRandom(3);
        RandomGenerator wrapped = GatewayPolicies.neverExploring(new SplittableRandom(3));
        for (int i = 0; i < 10_000; i++) {
            double u = plain.nextDouble();
            double w = wrapped.nextDouble();
            assertThat(w).isGreaterThanOrEqualTo(Exploration.EXPLORE_FRACTION).isLessThan(1);
            assertThat(w)
                    .isCloseTo(Exploration.EXPLORE_FRACTION + (1 - Exploration.EXPLORE_FRACTION) * u, within(1e-12));
            assertThat(wrapped.nextInt(7)).isEqualTo(plain.nextInt(7));
            assertThat(wrapped.nextLong()).isEqualTo(plain.nextLong());
        }
    }

    @Test
    void withoutExploration_noRequestExplores() {
        assertThat(run(Set.of(), FAILURES).share(AffinityOutcome.EXPLORE)).isPositive();
        assertThat(run(Set.of(SimCause.EXPLORATION), FAILURES).share(AffinityOutcome.EXPLORE))
                .isZero();
    }

    @Test
    void withoutDropOnError_theErrorAnswersStillCome_andTheMemoryKeepsWhatTheyWouldHaveDropped() {
        RunResult dropping = run(Set.of(), FAILURES);
        RunResult keeping = run(Set.of(SimCause.DROP_ON_ERROR), FAILURES);
        assertThat(keeping.retriedShare()).isEqualTo(dropping.retriedShare()).isPositive();
        assertThat(keeping.hitRate()).isGreaterThan(dropping.hitRate());
    }

    @Test
    void withoutDropOn429_only429sAreUnheard_a503StillDrops() {
        FailedAnswers only429 = new FailedAnswers(0.1, 0, 5);
        assertThat(run(Set.of(SimCause.DROP_ON_429), only429))
                .isEqualTo(run(Set.of(SimCause.DROP_ON_ERROR), only429))
                .isNotEqualTo(run(Set.of(), only429));
        FailedAnswers only503 = new FailedAnswers(0, 0.1, 5);
        assertThat(run(Set.of(SimCause.DROP_ON_429), only503))
                .isEqualTo(run(Set.of(), only503))
                .isNotEqualTo(run(Set.of(SimCause.DROP_ON_ERROR), only503));
        RunResult half = run(Set.of(SimCause.DROP_ON_429), FAILURES);
        assertThat(half.hitRate())
                .isGreaterThan(run(Set.of(), FAILURES).hitRate())
                .isLessThan(run(Set.of(SimCause.DROP_ON_ERROR), FAILURES).hitRate());
    }

    @Test
    void missPlacement_missesStillCounted_butPlacedElsewhere() {
        RunResult byOracle = run(Set.of(SimCause.MISS_PLACEMENT), FAILURES);
        RunResult byLoad = run(Set.of(SimCause.MISS_LOAD), FAILURES);
        assertThat(byOracle.share(AffinityOutcome.MISS)).isPositive();
        assertThat(byLoad.share(AffinityOutcome.MISS)).isPositive();
        RunResult router = run(Set.of(), FAILURES);
        assertThat(byOracle).isNotEqualTo(router).isNotEqualTo(byLoad);
        assertThat(byLoad).isNotEqualTo(router);
    }

    @Test
    void tail_sharesAddUp_andItsWaitsAreAtLeastThePercentile() {
        RunResult r = run(Set.of(), FAILURES);
        RunResult.Tail tail = r.tail();
        assertThat(tail.shares().values().stream()
                        .mapToDouble(Double::doubleValue)
                        .sum())
                .isCloseTo(1, within(1e-9));
        assertThat(tail.share("retried")).isPositive();
        // Every request of the slowest tenth waited at least the p90; an error answer comes back at once, so its
        // time to first token is exactly these three parts.
        assertThat(tail.slotWait() + tail.prefillWait() + tail.ownPrefill()).isGreaterThanOrEqualTo(r.p90Ttft());
        assertThat(run(Set.of(), FailedAnswers.none()).tail().share("retried")).isZero();
    }

    @Test
    void slotsKnown_theMixedGridsFastClustersShowNoPhantomQueue_soFewerStickyRequestsLeaveForLoad() {
        RunResult learned = run(Set.of(), FAILURES);
        RunResult known = run(Set.of(SimCause.UNKNOWN_SLOTS), FAILURES);

        // Learned as the most sequences seen running, a cluster's slots stay below its true 16–32 at 80% load, and
        // what was sent since a scrape queues there: sticky requests leave for another cluster (outcome load).
        assertThat(known.share(AffinityOutcome.LOAD)).isLessThan(learned.share(AffinityOutcome.LOAD));
        assertThat(known.hitRate()).isGreaterThan(learned.hitRate());
    }

    @Test
    void markdown_oneLineARun_againstTheOracleWithErrorAnswers() {
        Study study = new Study(5, 0.05, FAILURES);
        Study clean = new Study(5, 0.05, FailedAnswers.none());
        List<Decomposition.Row> rows = Decomposition.run(
                new Decomposition.Studies(study, clean),
                new Decomposition.Cell(Workload.SHARED_CHAT.label(), SimGrid.mixed(), new double[] {0.8}),
                GatewayTuning.recommended(1.0, Duration.ofSeconds(2)),
                line -> {});
        assertThat(rows)
                .extracting(Decomposition.Row::configuration)
                .containsExactly(
                        "as configured",
                        "without exploration",
                        "without drop on error",
                        "without drop on 429 (5xx still drops)",
                        "misses placed by true load",
                        "misses placed by the oracle",
                        "slots known (told at the first scrape)",
                        "without error answers",
                        "without exploration and error answers, misses placed by the oracle",
                        "oracle",
                        "oracle without error answers");
        String table = Decomposition.markdown(rows, "recommended");
        assertThat(table.lines().filter(l -> l.startsWith("| shared-chat | mixed | 80% |")))
                .hasSize(11);
        assertThat(table).contains("| oracle | ").contains(" | 1.00 | ");
    }
}

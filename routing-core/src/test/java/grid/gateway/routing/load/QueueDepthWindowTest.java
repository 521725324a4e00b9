package grid.gateway.routing.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The windowed worst queue depth (docs/design.md §6) on a {@link ManualClock} that starts near the end of the long range. */
class QueueDepthWindowTest {
    private static final ClusterId EAST_A = new ClusterId(new SiteName("east"), "a");
    private static final ClusterId EAST_B = new ClusterId(new SiteName("east"), "b");
    private static final ClusterId WEST_A = new ClusterId(new SiteName("west"), "a");
    private static final Duration TEN_SECONDS = Duration.ofSeconds(10);

    private final ManualClock clock = new ManualClock();
    private final QueueDepthWindow window = new QueueDepthWindow(TEN_SECONDS);

    private void record(ClusterId cluster, double depth) {
        window.record(cluster, new QueueSample(clock.nanoTime(), depth));
    }

    private OptionalDouble worst(ClusterId cluster) {
        return window.worst(cluster, clock.nanoTime());
    }

    @Test
    void worst_severalSamplesInWindow_largest() {
        for (double depth : new double[] {2, 7, 3, 5}) {
            record(EAST_A, depth);
            clock.advanceSeconds(1);
        }
        assertThat(worst(EAST_A)).hasValue(7.0);
    }

    @Test
    void worst_noSampleRecorded_unmeasured() {
        assertThat(worst(EAST_A)).isEmpty();
        // A read does not create an entry for a cluster it has never seen.
        assertThat(window.trackedClusters()).isZero();
    }

    @Test
    void worst_sampleExactlyOneWindowOld_stillCounted() {
        record(EAST_A, 4);
        clock.advance(TEN_SECONDS);
        assertThat(worst(EAST_A)).hasValue(4.0);
    }

    @Test
    void worst_sampleOneNanosecondPastWindow_unmeasured() {
        record(EAST_A, 4);
        clock.advance(TEN_SECONDS.plusNanos(1));
        assertThat(worst(EAST_A)).isEmpty();
        // The read discarded the aged-out sample.
        assertThat(window.keptSamples(EAST_A)).isZero();
    }

    @Test
    void worst_largestAgesOut_nextLargestOfTheWindowRemains() {
        record(EAST_A, 5); // t0
        clock.advanceSeconds(1);
        record(EAST_A, 3); // t0 + 1
        clock.advanceSeconds(1);
        record(EAST_A, 4); // t0 + 2
        clock.advanceSeconds(8);
        assertThat(worst(EAST_A)).hasValue(5.0);
        clock.advance(Duration.ofNanos(1));
        assertThat(worst(EAST_A)).hasValue(4.0);
        clock.advanceSeconds(2);
        assertThat(worst(EAST_A)).isEmpty();
    }

    @Test
    void worst_samplesAcrossTheLongWrap_agedByDifference() {
        // ManualClock starts 65 s before Long.MAX_VALUE; these samples straddle the wrap to Long.MIN_VALUE.
        clock.advanceSeconds(60);
        record(EAST_A, 9);
        clock.advanceSeconds(1);
        // Before the wrap, with the sample's last moment in the window past it.
        assertThat(worst(EAST_A)).hasValue(9.0);
        clock.advanceSeconds(7);
        record(EAST_A, 2);
        assertThat(clock.nanoTime()).isNegative();
        clock.advanceSeconds(2);
        assertThat(worst(EAST_A)).hasValue(9.0);
        clock.advanceSeconds(1);
        assertThat(worst(EAST_A)).hasValue(2.0);
    }

    @Test
    void worst_clustersAreIndependent() {
        record(EAST_A, 3);
        record(EAST_B, 8);
        assertThat(worst(EAST_A)).hasValue(3.0);
        assertThat(worst(EAST_B)).hasValue(8.0);
        assertThat(worst(WEST_A)).isEmpty();
    }

    @Test
    void record_sampleOlderThanNewestRecorded_ignored() {
        long early = clock.nanoTime();
        clock.advanceSeconds(1);
        record(EAST_A, 2);
        window.record(EAST_A, new QueueSample(early, 50));
        assertThat(worst(EAST_A)).hasValue(2.0);
    }

    @Test
    void record_sameTimeDeeperSample_replacesShallower() {
        record(EAST_A, 2);
        record(EAST_A, 6);
        assertThat(worst(EAST_A)).hasValue(6.0);
        assertThat(window.keptSamples(EAST_A)).isEqualTo(1);
    }

    @Test
    void record_ofAScrapeEverySecondForAnHour_keepsAtMostOneWindow() {
        SplittableRandom random = new SplittableRandom(0x5EED_0101L);
        for (int second = 0; second < 3_600; second++) {
            record(EAST_A, random.nextInt(100));
            // The inclusive window holds the samples of 11 consecutive seconds.
            assertThat(window.keptSamples(EAST_A)).isLessThanOrEqualTo(11);
            clock.advanceSeconds(1);
        }
    }

    @Test
    void record_steadilyFallingQueue_keepsAtMostOneWindow() {
        // The worst case for a monotone queue: every sample is shallower than the one before.
        for (int second = 0; second < 1_000; second++) {
            record(EAST_A, 1_000 - second);
            assertThat(window.keptSamples(EAST_A)).isLessThanOrEqualTo(11);
            clock.advanceSeconds(1);
        }
    }

    @Test
    void worst_randomScrapesAndReads_matchesBruteForce() {
        SplittableRandom random = new SplittableRandom(0x5EED_0102L);
        List<QueueSample> all = new ArrayList<>();
        for (int step = 0; step < 5_000; step++) {
            clock.advance(Duration.ofMillis(random.nextInt(3_000)));
            long now = clock.nanoTime();
            if (random.nextInt(3) > 0) {
                QueueSample sample = new QueueSample(now, random.nextInt(30) / 2.0);
                all.add(sample);
                window.record(EAST_A, sample);
            } else {
                OptionalDouble expected = all.stream()
                        .filter(s -> now - s.atNanos() <= TEN_SECONDS.toNanos())
                        .mapToDouble(QueueSample::depth)
                        .max();
                assertThat(window.worst(EAST_A, now)).as("step %d", step).isEqualTo(expected);
            }
        }
    }

    @Test
    void reconfigure_shrinkingWindow_dropsSamplesOutsideIt() {
        record(EAST_A, 9);
        clock.advanceSeconds(5);
        record(EAST_A, 1);
        assertThat(worst(EAST_A)).hasValue(9.0);
        window.reconfigure(Duration.ofSeconds(3));
        assertThat(worst(EAST_A)).hasValue(1.0);
        assertThat(window.keptSamples(EAST_A)).isEqualTo(1);
    }

    @Test
    void reconfigure_growingWindow_countsKeptSamplesLonger() {
        record(EAST_A, 9);
        clock.advanceSeconds(15);
        window.reconfigure(Duration.ofSeconds(30));
        // Nothing read or recorded since the sample, so it was still kept and the longer window covers it.
        assertThat(worst(EAST_A)).hasValue(9.0);
    }

    @ParameterizedTest(name = "{0} ns")
    @ValueSource(longs = {0, -1, Long.MIN_VALUE})
    void reconfigure_windowNotPositive_refused(long nanos) {
        assertThatThrownBy(() -> window.reconfigure(Duration.ofNanos(nanos)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expected: > 0");
        assertThatThrownBy(() -> new QueueDepthWindow(Duration.ofNanos(nanos)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(window.windowNanos()).isEqualTo(TEN_SECONDS.toNanos());
    }

    @Test
    void reconfigure_windowBeyondLongNanos_refused() {
        assertThatThrownBy(() -> window.reconfigure(Duration.ofDays(365L * 300)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("window: PT");
    }

    @Test
    void retain_clusterLeftTheGrid_forgottenAndFreed() {
        record(EAST_A, 3);
        record(EAST_B, 4);
        record(WEST_A, 5);
        window.retain(Set.of(EAST_B));
        assertThat(window.trackedClusters()).isEqualTo(1);
        assertThat(worst(EAST_A)).isEmpty();
        assertThat(worst(EAST_B)).hasValue(4.0);
        assertThat(worst(WEST_A)).isEmpty();
    }

    @Test
    void sample_nonFiniteDepth_refused() {
        for (double depth : new double[] {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}) {
            assertThatThrownBy(() -> new QueueSample(0, depth)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void worst_readersDuringScrapes_seeOnlyRecordedDepths() throws Exception {
        // One scraper and four readers on real threads; the check is on values, not on timing.
        QueueDepthWindow shared = new QueueDepthWindow(Duration.ofNanos(50));
        int samples = 50_000;
        CountDownLatch start = new CountDownLatch(1);
        try (ExecutorService threads = Executors.newFixedThreadPool(5)) {
            List<Future<?>> readers = new ArrayList<>();
            for (int r = 0; r < 4; r++) {
                readers.add(threads.submit(() -> {
                    start.await();
                    for (int i = 0; i < samples; i++) {
                        OptionalDouble worst = shared.worst(EAST_A, i);
                        assertThat(worst.orElse(0)).isBetween(0.0, 9.0);
                    }
                    return null;
                }));
            }
            Future<?> scraper = threads.submit(() -> {
                start.await();
                for (int i = 0; i < samples; i++) {
                    shared.record(EAST_A, new QueueSample(i, i % 10));
                }
                return null;
            });
            start.countDown();
            scraper.get();
            for (Future<?> reader : readers) {
                reader.get();
            }
        }
        assertThat(shared.worst(EAST_A, samples - 1)).hasValue(9.0);
        assertThat(shared.keptSamples(EAST_A)).isLessThanOrEqualTo(51);
    }
}

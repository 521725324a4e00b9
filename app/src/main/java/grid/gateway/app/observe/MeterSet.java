package grid.gateway.app.observe;

import static java.util.Objects.requireNonNull;

import io.helidon.metrics.api.Counter;
import io.helidon.metrics.api.FunctionalCounter;
import io.helidon.metrics.api.Gauge;
import io.helidon.metrics.api.Meter;
import io.helidon.metrics.api.MeterRegistry;
import io.helidon.metrics.api.Tag;
import io.helidon.metrics.api.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Creates meters of the {@link GatewayMeter} list in one registry and remembers each one, so that exactly those can
 * be removed again (for a cluster that left the grid, or all of them on close).
 *
 * <p>Thread-safe: the registry is thread-safe and the remembered meters are a concurrent set.
 */
final class MeterSet {
    /**
     * Buckets of {@code grid_upstream_latency_seconds}: from a cached short prefill (milliseconds) to a long
     * non-streamed generation, whose headers arrive only with the whole answer (minutes).
     */
    static final List<Duration> LATENCY_BUCKETS = List.of(
            Duration.ofMillis(5),
            Duration.ofMillis(10),
            Duration.ofMillis(25),
            Duration.ofMillis(50),
            Duration.ofMillis(100),
            Duration.ofMillis(250),
            Duration.ofMillis(500),
            Duration.ofSeconds(1),
            Duration.ofMillis(2_500),
            Duration.ofSeconds(5),
            Duration.ofSeconds(10),
            Duration.ofSeconds(30),
            Duration.ofSeconds(60),
            Duration.ofSeconds(120),
            Duration.ofSeconds(300),
            Duration.ofSeconds(600));

    private final MeterRegistry registry;
    private final Set<Meter> meters = ConcurrentHashMap.newKeySet();

    MeterSet(MeterRegistry registry) {
        this.registry = requireNonNull(registry, "registry");
    }

    Counter counter(GatewayMeter meter, String... labelValues) {
        check(meter, GatewayMeter.Type.COUNTER);
        return remember(registry.getOrCreate(Counter.builder(meter.registeredName())
                .description(meter.description())
                .tags(tags(meter, labelValues))));
    }

    /** A counter whose count is read from {@code count} at each scrape. */
    FunctionalCounter functionalCounter(GatewayMeter meter, LongSupplier count, String... labelValues) {
        check(meter, GatewayMeter.Type.COUNTER);
        return remember(
                registry.getOrCreate(FunctionalCounter.builder(meter.registeredName(), count, LongSupplier::getAsLong)
                        .description(meter.description())
                        .tags(tags(meter, labelValues))));
    }

    Timer timer(GatewayMeter meter, String... labelValues) {
        check(meter, GatewayMeter.Type.TIMER);
        return remember(registry.getOrCreate(Timer.builder(meter.registeredName())
                .description(meter.description())
                .baseUnit("seconds")
                // No client-side quantiles (Helidon's default publishes six): they cannot be aggregated across
                // replicas, and Micrometer would expose them inside the histogram family.
                .percentiles(new double[0])
                .buckets(LATENCY_BUCKETS.toArray(Duration[]::new))
                .tags(tags(meter, labelValues))));
    }

    Gauge<Double> gauge(GatewayMeter meter, Supplier<Double> value, String... labelValues) {
        check(meter, GatewayMeter.Type.GAUGE);
        return remember(registry.getOrCreate(Gauge.builder(meter.registeredName(), value)
                .description(meter.description())
                .tags(tags(meter, labelValues))));
    }

    /** Removes {@code removed} from the registry. */
    void remove(Collection<? extends Meter> removed) {
        for (Meter meter : removed) {
            registry.remove(meter);
            meters.remove(meter);
        }
    }

    /** Removes every meter this set created. */
    void removeAll() {
        remove(List.copyOf(meters));
    }

    private <M extends Meter> M remember(M meter) {
        meters.add(meter);
        return meter;
    }

    private static void check(GatewayMeter meter, GatewayMeter.Type type) {
        if (meter.type() != type) {
            throw new IllegalArgumentException(meter + " is a " + meter.type() + ", not a " + type);
        }
    }

    private static List<Tag> tags(GatewayMeter meter, String... labelValues) {
        List<String> names = meter.labels();
        if (names.size() != labelValues.length) {
            throw new IllegalArgumentException(meter + " takes labels " + names);
        }
        List<Tag> tags = new ArrayList<>(names.size());
        for (int i = 0; i < labelValues.length; i++) {
            tags.add(Tag.create(names.get(i), labelValues[i]));
        }
        return tags;
    }
}

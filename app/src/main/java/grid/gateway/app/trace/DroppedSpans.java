package grid.gateway.app.trace;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleCounterBuilder;
import io.opentelemetry.api.metrics.DoubleGaugeBuilder;
import io.opentelemetry.api.metrics.DoubleHistogramBuilder;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.LongCounterBuilder;
import io.opentelemetry.api.metrics.LongUpDownCounterBuilder;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.MeterBuilder;
import io.opentelemetry.api.metrics.MeterProvider;
import io.opentelemetry.api.metrics.ObservableLongCounter;
import io.opentelemetry.api.metrics.ObservableLongMeasurement;
import io.opentelemetry.context.Context;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * Counts the spans the batch span processor dropped because its queue was full ({@code grid_trace_spans_dropped_total}).
 * The processor reports each span it handles on the meter provider it is given, in the SDK's legacy internal
 * telemetry (set explicitly in {@link Tracing}): the counter {@value #PROCESSED} with {@code dropped=true} for a span its
 * full queue refused. This provider keeps that one count and gives every other instrument the no-op meter, so the
 * processor's other self-metrics cost nothing.
 *
 * <p>Thread-safe.
 */
final class DroppedSpans implements MeterProvider {
    /** The processor's counter of the spans it handled. */
    static final String PROCESSED = "processedSpans";

    private static final AttributeKey<Boolean> DROPPED = AttributeKey.booleanKey("dropped");

    private final LongAdder dropped = new LongAdder();
    private final Meter noop = MeterProvider.noop().get("grid.gateway");

    /** Spans dropped so far. */
    long count() {
        return dropped.sum();
    }

    @Override
    public MeterBuilder meterBuilder(String instrumentationScopeName) {
        return new MeterBuilder() {
            @Override
            public MeterBuilder setSchemaUrl(String schemaUrl) {
                return this;
            }

            @Override
            public MeterBuilder setInstrumentationVersion(String instrumentationScopeVersion) {
                return this;
            }

            @Override
            public Meter build() {
                return new Counting();
            }
        };
    }

    /** A meter whose {@value #PROCESSED} counter is counted; every other instrument is the no-op one. */
    private final class Counting implements Meter {
        @Override
        public LongCounterBuilder counterBuilder(String name) {
            LongCounterBuilder none = noop.counterBuilder(name);
            return PROCESSED.equals(name) ? new Builder(none) : none;
        }

        @Override
        public LongUpDownCounterBuilder upDownCounterBuilder(String name) {
            return noop.upDownCounterBuilder(name);
        }

        @Override
        public DoubleHistogramBuilder histogramBuilder(String name) {
            return noop.histogramBuilder(name);
        }

        @Override
        public DoubleGaugeBuilder gaugeBuilder(String name) {
            return noop.gaugeBuilder(name);
        }
    }

    /** Builds the counter that keeps the dropped spans. */
    private final class Builder implements LongCounterBuilder {
        private final LongCounterBuilder none;

        Builder(LongCounterBuilder none) {
            this.none = none;
        }

        @Override
        public LongCounterBuilder setDescription(String description) {
            return this;
        }

        @Override
        public LongCounterBuilder setUnit(String unit) {
            return this;
        }

        @Override
        public DoubleCounterBuilder ofDoubles() {
            return none.ofDoubles();
        }

        @Override
        public LongCounter build() {
            return new Processed();
        }

        @Override
        public ObservableLongCounter buildWithCallback(Consumer<ObservableLongMeasurement> callback) {
            return none.buildWithCallback(callback);
        }
    }

    /** The processor's counter: only its {@code dropped=true} additions are kept. */
    private final class Processed implements LongCounter {
        @Override
        public void add(long value) {
            // No attributes: not a drop.
        }

        @Override
        public void add(long value, Attributes attributes) {
            if (Boolean.TRUE.equals(attributes.get(DROPPED)) && value > 0) {
                dropped.add(value);
            }
        }

        @Override
        public void add(long value, Attributes attributes, Context context) {
            add(value, attributes);
        }
    }
}

package grid.gateway.app.trace;

import grid.gateway.app.config.TracingSettings;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.common.InternalTelemetryVersion;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * The gateway's tracing, built once at start from {@code tracing.*} (docs/operations.md, "Tracing").
 *
 * <ul>
 *   <li>No {@code otlp_endpoint}: trace context is passed on ({@link PropagatedTrace}), no OpenTelemetry object is
 *       built, per request or at all, and no exporter thread runs.
 *   <li>An {@code otlp_endpoint}: the OpenTelemetry SDK with a batch span processor and the OTLP/HTTP protobuf
 *       exporter. The processor's queue is bounded ({@value #QUEUE} spans; more are dropped and counted, {@link
 *       #droppedSpans}) and exports on its own
 *       thread, so a collector that is down or slow never holds a request; each export is bounded whole by {@link
 *       #EXPORT_TIMEOUT} ({@link OtlpSender}). {@link #close} exports what is queued, waiting at most {@link
 *       #CLOSE_BOUND}, then aborts an export still running.
 * </ul>
 *
 * <p>Thread-safe: the SDK's tracer is; a {@link RequestTrace} belongs to one request's thread.
 */
public final class Tracing implements AutoCloseable {
    /** Spans queued for export at most; a full queue drops new spans rather than wait. */
    static final int QUEUE = 2048;
    /** The longest one export may take. */
    public static final Duration EXPORT_TIMEOUT = Duration.ofSeconds(10);
    /** How long {@link #close} waits for the queued spans to be exported. */
    static final Duration CLOSE_BOUND = Duration.ofSeconds(5);

    private static final System.Logger LOG = System.getLogger(Tracing.class.getName());
    private static final Duration SCHEDULE = Duration.ofSeconds(1);

    private final RandomGenerator random;
    private final @Nullable SdkTracerProvider provider;
    private final @Nullable SpanExporter exporter;
    private final @Nullable Tracer tracer;
    private final Duration closeBound;
    private final DroppedSpans dropped;

    private Tracing(
            RandomGenerator random,
            @Nullable SdkTracerProvider provider,
            @Nullable SpanExporter exporter,
            Duration closeBound,
            DroppedSpans dropped) {
        this.random = random;
        this.provider = provider;
        this.exporter = exporter;
        this.tracer = provider == null ? null : provider.get("grid.gateway");
        this.closeBound = closeBound;
        this.dropped = dropped;
    }

    /**
     * Tracing as {@code settings} say, each export ending by {@code exportTimeout} ({@link #EXPORT_TIMEOUT} but in
     * tests, which make a stuck export outlast them); {@code random} draws the parent ids passed on when nothing is
     * exported.
     */
    public static Tracing start(TracingSettings settings, RandomGenerator random, Duration exportTimeout) {
        return start(settings, random, exportTimeout, CLOSE_BOUND);
    }

    /** Tracing whose exports end by {@code exportTimeout} each and whose close waits at most {@code closeBound}. */
    static Tracing start(
            TracingSettings settings, RandomGenerator random, Duration exportTimeout, Duration closeBound) {
        Optional<URI> endpoint = settings.otlpEndpoint();
        if (endpoint.isEmpty()) {
            return new Tracing(random, null, null, closeBound, new DroppedSpans());
        }
        OtlpHttpSpanExporter exporter = OtlpHttpSpanExporter.builder()
                .setEndpoint(endpoint.get().toString())
                .setTimeout(exportTimeout)
                .build();
        DroppedSpans dropped = new DroppedSpans();
        BatchSpanProcessor processor = BatchSpanProcessor.builder(exporter)
                .setMaxQueueSize(QUEUE)
                .setMeterProvider(dropped)
                .setInternalTelemetryVersion(InternalTelemetryVersion.LEGACY)
                .setScheduleDelay(SCHEDULE)
                .setExporterTimeout(exportTimeout)
                .build();
        Resource service =
                Resource.create(Attributes.of(AttributeKey.stringKey("service.name"), settings.serviceName()));
        SdkTracerProvider provider = SdkTracerProvider.builder()
                .setResource(Resource.getDefault().merge(service))
                .setSampler(Sampler.parentBased(Sampler.traceIdRatioBased(settings.sampleRatio())))
                .addSpanProcessor(processor)
                .build();
        LOG.log(System.Logger.Level.INFO, () -> "tracing: exporting spans to " + endpoint.get());
        return new Tracing(random, provider, exporter, closeBound, dropped);
    }

    /**
     * The trace of {@code request} to the endpoint {@code route} (its path template), answered through {@code
     * response}; {@link RequestTrace#NONE} when nothing is exported and the client sent no {@code traceparent}.
     */
    public RequestTrace begin(ServerRequest request, ServerResponse response, String route) {
        Tracer exporting = tracer;
        if (exporting != null) {
            return SpanTrace.begin(exporting, request, response, route);
        }
        Optional<String> value = HeaderCarrier.traceparent(request.headers());
        if (value.isEmpty()) {
            return RequestTrace.NONE;
        }
        return TraceParent.parse(value.get())
                .<RequestTrace>map(parent -> PropagatedTrace.child(parent.child(random)))
                .orElse(PropagatedTrace.MALFORMED);
    }

    /** Spans dropped because the export queue was full ({@value #QUEUE}); 0 when nothing is exported. */
    public long droppedSpans() {
        return dropped.count();
    }

    /** The tracer spans are exported through; empty when nothing is exported. */
    Optional<Tracer> tracer() {
        return Optional.ofNullable(tracer);
    }

    /**
     * Exports the spans still queued (waiting at most {@link #CLOSE_BOUND}) and stops the exporter; an export still
     * running then (a collector that stalls) is aborted and its connection closed, rather than left to its deadline.
     */
    @Override
    public void close() {
        SdkTracerProvider p = provider;
        SpanExporter e = exporter;
        if (p != null && e != null) {
            if (!p.shutdown().join(closeBound.toMillis(), TimeUnit.MILLISECONDS).isDone()) {
                e.shutdown();
            }
        }
    }
}

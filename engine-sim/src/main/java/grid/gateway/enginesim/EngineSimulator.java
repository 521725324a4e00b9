package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import io.helidon.webserver.WebServer;
import io.helidon.webserver.WebServerConfig;
import io.helidon.webserver.http1.Http1Config;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A fake vLLM-compatible engine on a Helidon web server, for the gateway's conformance scenarios and demo grid
 * (modeled on OkHttp's MockWebServer). It serves the four generation APIs plain and streamed, stored responses,
 * {@code /v1/models} and {@code /metrics} as the vLLM server recorded in {@code testdata/vllm/} does, and, when its
 * {@link ApiSurface} adds them, conversations and deleting a stored response; queues requests in a fixed number of
 * slots, paces prefill and decode through a {@link Pacer}, keeps its own prefix cache, fails on demand, and records
 * every request.
 *
 * <pre>{@code
 * try (EngineSimulator engine = EngineSettings.builder().name("a").model("m").slots(2).instant().start()) {
 *     engine.failNext(1, Fault.rateLimited(Duration.ofSeconds(2)));
 *     ... send to engine.url() ...
 *     RecordedRequest first = engine.takeRequest(Duration.ofSeconds(5)).orElseThrow();
 * }
 * }</pre>
 *
 * <p>Thread-safe: requests run concurrently on virtual threads, and tests script and inspect from any thread.
 */
public final class EngineSimulator implements AutoCloseable {
    /** Times for a {@link #failOnPath} rule that never runs out. */
    public static final int ALWAYS = FaultScript.ALWAYS;

    private final EngineSettings settings;
    private final RequestLog log = new RequestLog();
    private final FaultScript script = new FaultScript();
    private final InFlight inFlight = new InFlight();
    private final ConnectionResets resets = new ConnectionResets();
    private final EngineQueue queue;
    private final EngineMetrics metrics;
    private final PrefixCache cache;
    private final WebServer server;

    private EngineSimulator(EngineSettings settings) {
        this.settings = requireNonNull(settings, "settings");
        this.queue = new EngineQueue(settings.slots());
        this.cache = new PrefixCache(settings.cacheBlocks());
        this.metrics = new EngineMetrics(settings, queue, cache);
        ApiParts parts = new ApiParts(
                new SimulatedEngine(settings, queue, cache, metrics),
                new ModelCatalog(settings.models(), settings.maxModelLen()),
                new Ids(settings.random()),
                settings.wallClock(),
                settings.api());
        EngineRoutes routes = new EngineRoutes(
                new EngineRoutes.Parts(log, script, metrics, inFlight, settings, endpoints(parts), resets));
        WebServerConfig.Builder builder = WebServer.builder();
        settings.tls().ifPresent(builder::tls);
        this.server = builder.host(settings.host())
                .port(settings.port())
                .connectionOptions(o -> o.tcpNoDelay(true))
                // uvicorn keeps an HTTP/1.1 connection without saying so: no "Connection: keep-alive" field.
                .addProtocol(Http1Config.builder().sendKeepAliveHeader(false).build())
                .featuresDiscoverServices(false)
                .routing(r -> r.any(routes::handle))
                .build()
                .start();
        if (!server.isRunning() || server.port() <= 0) {
            server.stop();
            throw new IllegalStateException("engine " + settings.name() + " could not bind " + settings.host() + ":"
                    + settings.port() + " (see the log above)");
        }
    }

    private EndpointTable endpoints(ApiParts parts) {
        ResponseStore responses = new ResponseStore();
        ConversationStore conversations = new ConversationStore();
        return new EndpointTable(
                new EndpointTable.Apis(
                        new ChatApi(parts),
                        new CompletionsApi(parts),
                        new MessagesApi(parts),
                        new ResponsesApi(parts, responses, conversations, inFlight),
                        new ResponseEndpoints(responses, inFlight),
                        new ConversationsApi(parts, conversations)),
                parts);
    }

    /**
     * Starts a simulator with {@code settings}.
     *
     * @throws IllegalStateException if the port cannot be bound
     */
    public static EngineSimulator start(EngineSettings settings) {
        return new EngineSimulator(settings);
    }

    /** The bound port. */
    public int port() {
        return server.port();
    }

    /** The base URL, such as {@code http://127.0.0.1:40123}. */
    public String url() {
        String host = settings.host().contains(":") ? "[" + settings.host() + "]" : settings.host();
        return (settings.tls().isPresent() ? "https://" : "http://") + host + ":" + port();
    }

    /** The settings it runs with. */
    public EngineSettings settings() {
        return settings;
    }

    /** The engine's name. */
    public String name() {
        return settings.name();
    }

    /** The served models, the first one labelling {@code /metrics}. */
    public List<String> models() {
        return settings.models();
    }

    /** Empties the prefix cache: later prompts find nothing cached, whatever a gateway remembers of them. */
    public void resetPrefixCache() {
        cache.clear();
    }

    /**
     * Makes {@code vllm:num_requests_waiting} report {@code depth} instead of the simulated queue;
     * {@code vllm:num_requests_running} still reports the requests running. A forced depth is a test's lever on the
     * line alone: with nothing running beside it, a real vLLM would not show that pair (it queues only a full batch),
     * but the gateway reads an unsaturated batch from it and learns no batch limit, so the forced line is all that
     * steers routing (tests count on that: {@code InFlightQualityTest} gives a cluster one waiting and two free slots).
     * A test of a full batch holds requests in their slots ({@link Fault#holdFirstByte}) instead.
     */
    public void setQueueDepth(int depth) {
        if (depth < 0) {
            throw new IllegalArgumentException("depth: " + depth + " (expected: >= 0)");
        }
        metrics.forceWaiting(OptionalInt.of(depth));
    }

    /**
     * While {@code failing}, {@code /metrics} answers 503 and every other request is served as usual: a pod whose
     * scrape fails, for the gateway's partly measured clusters.
     */
    public void failScrapes(boolean failing) {
        metrics.failScrapes(failing);
    }

    /** Makes {@code vllm:num_requests_waiting} follow the simulated queue again. */
    public void clearQueueDepth() {
        metrics.forceWaiting(OptionalInt.empty());
    }

    /** What {@code vllm:num_requests_waiting} reports: the forced depth, or the requests waiting for a slot. */
    public int queueDepth() {
        return metrics.waiting();
    }

    /** Requests holding a slot of the simulated queue. */
    public int running() {
        return queue.running();
    }

    /** Requests waiting for a slot of the simulated queue (never the forced depth). */
    public int waiting() {
        return queue.waiting();
    }

    /**
     * Waits until exactly {@code running} requests hold a slot and {@code waiting} wait for one.
     *
     * @return false if that did not happen within {@code timeout}
     */
    public boolean awaitQueue(int running, int waiting, Duration timeout) throws InterruptedException {
        return queue.awaitCounts(running, waiting, timeout);
    }

    /** Applies {@code faults} to each of the next {@code times} requests, whatever their path. */
    public void failNext(int times, Fault... faults) {
        script.add(Optional.empty(), times, List.of(faults));
    }

    /**
     * Applies {@code faults} to each of the next {@code times} requests to exactly {@code path} (the raw path, no
     * query); {@link #ALWAYS} for every one.
     */
    public void failOnPath(String path, int times, Fault... faults) {
        script.add(Optional.of(requireNonNull(path, "path")), times, List.of(faults));
    }

    /** Forgets every scripted fault that has not been used up. */
    public void clearFailures() {
        script.clear();
    }

    /** The next recorded request, oldest first, waiting up to {@code timeout}; empty if none arrived. */
    public Optional<RecordedRequest> takeRequest(Duration timeout) throws InterruptedException {
        return log.take(timeout);
    }

    /**
     * Waits until the peer abandons an answer (closes its connection while the simulator still writes it, as a
     * gateway does when its client goes away); each abandoned answer satisfies one call.
     *
     * @return false if no answer was abandoned within {@code timeout}
     */
    public boolean awaitAbandonedAnswer(Duration timeout) throws InterruptedException {
        return log.awaitAbandoned(timeout);
    }

    /**
     * Requests that found their connection reset because the answer before them on it was scripted as its last
     * ({@link Fault#resetAfterAnswer()}); they are not recorded.
     */
    public int connectionResets() {
        return resets.count();
    }

    /** Requests recorded so far ({@code /metrics} scrapes excluded). */
    public int requestCount() {
        return log.requestCount();
    }

    /** {@code /metrics} scrapes so far. */
    public int metricsScrapeCount() {
        return log.scrapeCount();
    }

    /** Stops the server; requests still held, queued or paused are interrupted and their connections closed. */
    @Override
    public void close() {
        inFlight.close();
        server.stop();
    }

    @Override
    public String toString() {
        return "EngineSimulator[" + settings.name() + " " + settings.host() + ":" + server.port() + "]";
    }
}

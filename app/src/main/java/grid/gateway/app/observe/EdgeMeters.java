package grid.gateway.app.observe;

import static java.util.Objects.requireNonNull;

import grid.gateway.app.listen.ListenerEvents;
import grid.gateway.app.listen.OpenFiles;
import io.helidon.metrics.api.Counter;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.BooleanSupplier;

/**
 * The meters of the gateway's edges (docs/failure-behaviour.md, "File descriptors"; docs/operations.md, "Why did it go
 * there?"): whether each listener accepts, its accept pauses, the client connection cap, the process's open files
 * against its limit, the admin route explainer's calls, and the client requests whose client left.
 *
 * <p>Thread-safe: counters are, the per-listener map is concurrent, gauges read suppliers at scrape time.
 */
public final class EdgeMeters implements ListenerEvents {
    /** The result of one {@code POST /route/explain} call: the {@code result} label. */
    public enum ExplainResult {
        /** Authorized and answered (200, or 400 for a request the explainer cannot take). */
        ANSWERED,
        /** No bearer token, or one the token file does not hold: 401. */
        UNAUTHORIZED,
        /** {@code server.route_explain.enabled} is false: 404. */
        DISABLED,
        /** Authorized, but its body was too large, too slow, over the body budget or unreadable. */
        REFUSED;

        /** The label value. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final MeterSet meters;
    private final ConcurrentMap<String, Counter> pauses = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Counter> sendTimeouts = new ConcurrentHashMap<>();
    private final Map<ExplainResult, Counter> explain = new EnumMap<>(ExplainResult.class);
    private final Counter goneBefore;
    private final Counter goneDuring;

    EdgeMeters(MeterSet meters) {
        this.meters = meters;
        meters.gauge(GatewayMeter.OPEN_FILES, () -> orNaN(OpenFiles.open()));
        meters.gauge(GatewayMeter.OPEN_FILES_LIMIT, () -> orNaN(OpenFiles.limit()));
        for (ExplainResult result : ExplainResult.values()) {
            explain.put(result, meters.counter(GatewayMeter.ROUTE_EXPLAIN_CALLS, result.label()));
        }
        goneBefore = meters.counter(GatewayMeter.CLIENT_GONE, "before_answer");
        goneDuring = meters.counter(GatewayMeter.CLIENT_GONE, "during_answer");
    }

    /** Counts a client request whose client left before its answer ended; {@code answerStarted}: some had gone out. */
    public void clientGone(boolean answerStarted) {
        (answerStarted ? goneDuring : goneBefore).increment();
    }

    /** Registers the listener {@code name}'s gauge, read from {@code accepting}, and its pause counter at 0. */
    public void listener(String name, BooleanSupplier accepting) {
        requireNonNull(accepting, "accepting");
        meters.gauge(GatewayMeter.LISTENER_ACCEPTING, () -> accepting.getAsBoolean() ? 1.0 : 0.0, name);
        pauses.computeIfAbsent(name, n -> meters.counter(GatewayMeter.LISTENER_ACCEPT_PAUSES, n));
        sendTimeouts.computeIfAbsent(name, n -> meters.counter(GatewayMeter.CLIENT_SEND_TIMEOUTS, n));
    }

    /** Registers {@code grid_client_connections_limit}: {@code cap} (0: none). */
    public void clientConnectionsLimit(int cap) {
        meters.gauge(GatewayMeter.CLIENT_CONNECTIONS_LIMIT, () -> (double) cap);
    }

    @Override
    public void acceptPaused(String listener) {
        pauses.computeIfAbsent(listener, n -> meters.counter(GatewayMeter.LISTENER_ACCEPT_PAUSES, n))
                .increment();
    }

    @Override
    public void acceptResumed(String listener) {
        // The gauge reads the guard itself.
    }

    @Override
    public void sendTimedOut(String listener) {
        sendTimeouts
                .computeIfAbsent(listener, n -> meters.counter(GatewayMeter.CLIENT_SEND_TIMEOUTS, n))
                .increment();
    }

    /** Counts one route explainer call. */
    public void explained(ExplainResult result) {
        GatewayMetrics.registered(explain, requireNonNull(result, "result")).increment();
    }

    private static double orNaN(OptionalLong value) {
        return value.isPresent() ? value.getAsLong() : Double.NaN;
    }
}

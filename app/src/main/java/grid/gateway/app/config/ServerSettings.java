package grid.gateway.app.config;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * The {@code server} block: listeners and request limits.
 *
 * <p>Thread-safe (immutable).
 *
 * @param port client listener port; 0 binds any free port; default 8080
 * @param adminPort admin listener port ({@code /metrics}, {@code /health/*}); 0 binds any free port; default 9090
 * @param maxBodyBytes largest request body accepted, in bytes; larger answers 413; default 33554432 (32 MiB)
 * @param headerTimeout {@code header_timeout_ms}: from the end of the request line to the end of the headers;
 *     a client slower than this has its connection closed; default 10000 ms
 * @param bodyTimeout {@code body_timeout_ms}: from the end of the headers to the last body byte; a client slower
 *     than this gets 408 and its connection closed; default 60000 ms
 * @param sendTimeout {@code send_timeout_ms}: longest wait for one write of an answer to the client (nginx's
 *     {@code send_timeout}: between two successful writes, not the whole answer); a client that reads nothing for this
 *     long has its connection closed, and its upstream request with it; default 60000 ms
 * @param shutdownGrace {@code shutdown_grace_ms}: how long a stopping gateway lets requests in flight finish before
 *     it cuts them; default 30 s
 * @param shutdownDelay {@code shutdown_delay_ms}: how long a stopping gateway keeps accepting and answering after
 *     it turns not ready, before it closes its listener and drains (the time load balancers need to stop sending);
 *     default 0
 * @param maxInflightBodyBytes {@code max_inflight_body_bytes}: request body bytes all requests together may hold in
 *     memory; a body that would pass it answers 503; 0 (the default) means half the JVM's maximum heap
 * @param binding the listeners' addresses and connection cap
 * @param routeExplain {@code route_explain}: whether the admin listener answers {@code POST /route/explain}, and the
 *     bearer tokens it takes
 */
public record ServerSettings(
        int port,
        int adminPort,
        long maxBodyBytes,
        Duration headerTimeout,
        Duration bodyTimeout,
        Duration sendTimeout,
        Duration shutdownGrace,
        Duration shutdownDelay,
        long maxInflightBodyBytes,
        Binding binding,
        RouteExplainSettings routeExplain) {
    /** docs/design.md §7 defaults. */
    public static final int DEFAULT_PORT = 8080;
    /** docs/design.md §7 defaults. */
    public static final int DEFAULT_ADMIN_PORT = 9090;
    /** docs/design.md §7 defaults. */
    public static final long DEFAULT_MAX_BODY_BYTES = 32L * 1024 * 1024;
    /** The CIS nginx benchmark's 10 s for a whole request head. */
    public static final Duration DEFAULT_HEADER_TIMEOUT = Duration.ofSeconds(10);
    /** nginx's {@code client_body_timeout} 60 s, here for the whole body: 32 MiB then needs about 4.5 Mbit/s. */
    public static final Duration DEFAULT_BODY_TIMEOUT = Duration.ofSeconds(60);
    /** nginx's {@code send_timeout}: 60 s without the client taking a byte of its answer. */
    public static final Duration DEFAULT_SEND_TIMEOUT = Duration.ofSeconds(60);
    /** Long enough for most answers in flight, and as long as Kubernetes waits before it kills a pod. */
    public static final Duration DEFAULT_SHUTDOWN_GRACE = Duration.ofSeconds(30);
    /**
     * No delay outside an orchestrator: a gateway stopped by hand (Ctrl-C, {@code docker stop}) has no load balancer
     * to wait for. The Helm chart sets 10 s (docs/failure-behaviour.md "Lifecycle").
     */
    public static final Duration DEFAULT_SHUTDOWN_DELAY = Duration.ZERO;

    /** The client listener's default address: every interface. */
    public static final String DEFAULT_HOST = "0.0.0.0";

    /**
     * The admin listener's default address: loopback only, so that metrics, health and the route explainer are not
     * reachable from the network unless an operator binds them there (the Helm chart binds the pod's IP).
     */
    public static final String DEFAULT_ADMIN_HOST = "127.0.0.1";

    /** Validates. */
    public ServerSettings {
        requireNonNull(headerTimeout, "headerTimeout");
        requireNonNull(bodyTimeout, "bodyTimeout");
        requireNonNull(sendTimeout, "sendTimeout");
        requireNonNull(shutdownGrace, "shutdownGrace");
        requireNonNull(shutdownDelay, "shutdownDelay");
        requireNonNull(binding, "binding");
        requireNonNull(routeExplain, "routeExplain");
    }

    /** Settings with the default read deadlines, shutdown grace, body budget and binding. */
    public ServerSettings(int port, int adminPort, long maxBodyBytes) {
        this(
                port,
                adminPort,
                maxBodyBytes,
                DEFAULT_HEADER_TIMEOUT,
                DEFAULT_BODY_TIMEOUT,
                DEFAULT_SEND_TIMEOUT,
                DEFAULT_SHUTDOWN_GRACE,
                DEFAULT_SHUTDOWN_DELAY,
                0,
                Binding.DEFAULT,
                RouteExplainSettings.DISABLED);
    }

    /**
     * The body budget in force: {@code max_inflight_body_bytes}, or when it is 0 half of {@code maxHeap}; never less
     * than one largest body.
     */
    public long inflightBodyBudget(long maxHeap) {
        long configured = maxInflightBodyBytes == 0 ? maxHeap / 2 : maxInflightBodyBytes;
        return Math.max(configured, maxBodyBytes);
    }

    /**
     * Where the listeners bind and how many connections the client listener holds (all read at start).
     *
     * @param host {@code server.host}: the client listener's address; default every interface
     * @param adminHost {@code server.admin_host}: the admin listener's address; default loopback
     *     ({@value #DEFAULT_ADMIN_HOST})
     * @param maxConnections {@code server.max_connections}: open client connections at most; {@value #AUTO} (written
     *     {@code auto}, the default) derives it from the process's open-file limit at start
     *     ({@code OpenFiles.connectionsFor}); 0 means no limit
     */
    public record Binding(String host, String adminHost, int maxConnections) {
        /** {@code max_connections: auto}. */
        public static final int AUTO = -1;
        /** Descriptors {@code auto} keeps back from the client connection cap for everything else. */
        public static final long RESERVED_FILES = 512;
        /** The smallest cap {@code auto} derives: a process this short of descriptors still serves a few clients. */
        public static final int MIN_CONNECTIONS = 16;

        /** The client listener on every interface, the admin listener on loopback, the cap from the open-file limit. */
        public static final Binding DEFAULT = new Binding(DEFAULT_HOST, DEFAULT_ADMIN_HOST, AUTO);

        /** Validates. */
        public Binding {
            requireNonNull(host, "host");
            requireNonNull(adminHost, "adminHost");
            if (maxConnections < AUTO) {
                throw new IllegalArgumentException(
                        "maxConnections: " + maxConnections + " (expected: -1 (auto) or more)");
            }
        }

        /**
         * The client connection cap in force for a process whose open-file limit is {@code openFileLimit}: the
         * configured number, or under {@code auto} {@link #connectionsFor} the limit (no limit when it is unknown).
         */
        public int connectionCap(OptionalLong openFileLimit) {
            if (maxConnections != AUTO) {
                return maxConnections;
            }
            return openFileLimit.isPresent() ? connectionsFor(openFileLimit.getAsLong()) : 0;
        }

        /**
         * The client connections {@code openFileLimit} descriptors leave room for:
         *
         * <pre>
         *   max(16, (open-file limit − 512) / 2)
         * </pre>
         *
         * Each client connection can hold one upstream connection while its request is in flight (two descriptors);
         * the 512 kept back cover the JVM's own (its libraries: about 120 for the gateway's jar and libs), the admin
         * listener with its probes and scrapes, queue scrapes, Redis, the OTLP exporter, config and key files, and
         * idle pooled upstream connections. 1024 gives 256; 65,536 gives 32,512; 1,048,576 (containerd's default)
         * gives 524,032.
         */
        public static int connectionsFor(long openFileLimit) {
            return Math.clamp((openFileLimit - RESERVED_FILES) / 2, MIN_CONNECTIONS, Integer.MAX_VALUE);
        }
    }
}

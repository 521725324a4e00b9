package grid.gateway.app;

import static java.util.Objects.requireNonNull;

import grid.gateway.app.access.AccessLogParts;
import grid.gateway.app.config.ServerSettings;
import grid.gateway.app.endpoint.EndpointTable;
import grid.gateway.app.tls.GatewayTls;
import grid.gateway.app.trace.Tracing;
import grid.gateway.routing.time.MonotonicClock;
import grid.gateway.routing.time.Randomness;
import grid.gateway.routing.time.SystemMonotonicClock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * Injected time, randomness, bind address and API surface.
 *
 * @param clock the monotonic clock every window, TTL and ejection runs on
 * @param random exploration, tie-breaks and the prefix index salt
 * @param host the address both listeners bind, overriding {@code server.host} and {@code server.admin_host}
 *     (tests bind loopback); empty: the config's
 * @param endpoints the API paths served; {@link EndpointTable#standard()} but in tests that add a row
 * @param access the access log's sink, request id source and wall clock; stdout, random ids and the system clock
 *     but in tests
 * @param adminHost the address the admin listener binds when {@code host} is empty, overriding
 *     {@code server.admin_host}: in production the environment variable {@value #ADMIN_HOST_VARIABLE} (the Helm chart
 *     sets the pod's IP, which a shared config file cannot hold); empty: the config's
 * @param traceExportTimeout how long one export of spans may take ({@link Tracing#EXPORT_TIMEOUT} but in tests, which
 *     make a stuck export outlast the test rather than race it)
 */
public record GatewayRuntime(
        MonotonicClock clock,
        RandomGenerator random,
        Optional<String> host,
        EndpointTable endpoints,
        AccessLogParts access,
        Optional<String> adminHost,
        Duration traceExportTimeout) {
    /** The environment variable that overrides {@code server.admin_host}. */
    public static final String ADMIN_HOST_VARIABLE = "GRID_GATEWAY_ADMIN_HOST";

    public GatewayRuntime {
        requireNonNull(clock, "clock");
        requireNonNull(random, "random");
        requireNonNull(host, "host");
        requireNonNull(endpoints, "endpoints");
        requireNonNull(access, "access");
        requireNonNull(adminHost, "adminHost");
        requireNonNull(traceExportTimeout, "traceExportTimeout");
    }

    /** No override of {@code server.admin_host} but {@code host}. */
    public GatewayRuntime(
            MonotonicClock clock,
            RandomGenerator random,
            Optional<String> host,
            EndpointTable endpoints,
            AccessLogParts access) {
        this(clock, random, host, endpoints, access, Optional.empty(), Tracing.EXPORT_TIMEOUT);
    }

    /** The production access log. */
    public GatewayRuntime(
            MonotonicClock clock, RandomGenerator random, Optional<String> host, EndpointTable endpoints) {
        this(clock, random, host, endpoints, AccessLogParts.production());
    }

    /** The same runtime with {@code parts} for the access log. */
    public GatewayRuntime withAccess(AccessLogParts parts) {
        return new GatewayRuntime(clock, random, host, endpoints, parts, adminHost, traceExportTimeout);
    }

    /** The same runtime, each export of spans ending by {@code timeout}. */
    public GatewayRuntime withTraceExportTimeout(Duration timeout) {
        return new GatewayRuntime(clock, random, host, endpoints, access, adminHost, timeout);
    }

    /** The standard endpoint table. */
    public GatewayRuntime(MonotonicClock clock, RandomGenerator random, Optional<String> host) {
        this(clock, random, host, EndpointTable.standard());
    }

    /** Both listeners on {@code host}, whatever the config says. */
    public GatewayRuntime(MonotonicClock clock, RandomGenerator random, String host) {
        this(clock, random, Optional.of(host));
    }

    /**
     * Production: the system clock, thread-local randomness, the config's addresses but the admin listener's when
     * {@code environment} sets {@value #ADMIN_HOST_VARIABLE}.
     */
    public static GatewayRuntime production(Map<String, String> environment) {
        Optional<String> adminHost = Optional.ofNullable(environment.get(ADMIN_HOST_VARIABLE))
                .map(String::strip)
                .filter(value -> !value.isEmpty());
        return new GatewayRuntime(
                SystemMonotonicClock.INSTANCE,
                Randomness.INSTANCE,
                Optional.empty(),
                EndpointTable.standard(),
                AccessLogParts.production(),
                adminHost,
                Tracing.EXPORT_TIMEOUT);
    }

    Listeners.Bind client(ServerSettings server, GatewayTls tls) {
        return new Listeners.Bind(host.orElse(server.binding().host()), tls.clientListener());
    }

    Listeners.Bind admin(ServerSettings server, GatewayTls tls) {
        return new Listeners.Bind(
                host.or(() -> adminHost).orElse(server.binding().adminHost()), tls.adminListener());
    }
}

package grid.gateway.app;

import static java.util.Objects.requireNonNull;

import grid.gateway.app.access.AccessLogParts;
import grid.gateway.app.config.ServerSettings;
import grid.gateway.app.endpoint.EndpointTable;
import grid.gateway.app.tls.GatewayTls;
import grid.gateway.routing.time.MonotonicClock;
import grid.gateway.routing.time.Randomness;
import grid.gateway.routing.time.SystemMonotonicClock;
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
 */
public record GatewayRuntime(
        MonotonicClock clock,
        RandomGenerator random,
        Optional<String> host,
        EndpointTable endpoints,
        AccessLogParts access) {
    public GatewayRuntime {
        requireNonNull(clock, "clock");
        requireNonNull(random, "random");
        requireNonNull(host, "host");
        requireNonNull(endpoints, "endpoints");
        requireNonNull(access, "access");
    }

    /** The production access log. */
    public GatewayRuntime(
            MonotonicClock clock, RandomGenerator random, Optional<String> host, EndpointTable endpoints) {
        this(clock, random, host, endpoints, AccessLogParts.production());
    }

    /** The same runtime with {@code parts} for the access log. */
    public GatewayRuntime withAccess(AccessLogParts parts) {
        return new GatewayRuntime(clock, random, host, endpoints, parts);
    }

    /** The standard endpoint table. */
    public GatewayRuntime(MonotonicClock clock, RandomGenerator random, Optional<String> host) {
        this(clock, random, host, EndpointTable.standard());
    }

    /** Both listeners on {@code host}, whatever the config says. */
    public GatewayRuntime(MonotonicClock clock, RandomGenerator random, String host) {
        this(clock, random, Optional.of(host));
    }

    /** Production: the system clock, thread-local randomness, the config's addresses. */
    public static GatewayRuntime production() {
        return new GatewayRuntime(SystemMonotonicClock.INSTANCE, Randomness.INSTANCE, Optional.empty());
    }

    Listeners.Bind client(ServerSettings server, GatewayTls tls) {
        return new Listeners.Bind(host.orElse(server.binding().host()), tls.clientListener());
    }

    Listeners.Bind admin(ServerSettings server, GatewayTls tls) {
        return new Listeners.Bind(host.orElse(server.binding().adminHost()), tls.adminListener());
    }
}

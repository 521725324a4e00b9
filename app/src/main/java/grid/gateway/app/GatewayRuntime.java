package grid.gateway.app;

import static java.util.Objects.requireNonNull;

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
 */
public record GatewayRuntime(
        MonotonicClock clock, RandomGenerator random, Optional<String> host, EndpointTable endpoints) {
    public GatewayRuntime {
        requireNonNull(clock, "clock");
        requireNonNull(random, "random");
        requireNonNull(host, "host");
        requireNonNull(endpoints, "endpoints");
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

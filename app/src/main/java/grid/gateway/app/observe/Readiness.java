package grid.gateway.app.observe;

import java.util.Optional;

/**
 * Whether the gateway is ready for traffic (docs/design.md §10, {@code /health/ready}): once a serving config is loaded and
 * the client listener is bound, and until the gateway starts shutting down. Each is set once and never cleared; a
 * process that cannot serve exits.
 *
 * <p>Thread-safe: three volatile flags.
 */
public final class Readiness {
    private volatile boolean configLoaded;
    private volatile boolean clientListenerBound;
    private volatile boolean shuttingDown;

    /** Not ready: no config loaded, no client listener bound. */
    public Readiness() {}

    /** A valid serving config is in force. */
    public void configLoaded() {
        configLoaded = true;
    }

    /** The client listener is bound and accepting connections. */
    public void clientListenerBound() {
        clientListenerBound = true;
    }

    /** The gateway is shutting down: it takes no new connection, and load balancers should stop sending. */
    public void shuttingDown() {
        shuttingDown = true;
    }

    /** Whether the config is loaded and the listener bound, and the gateway is not shutting down. */
    public boolean isReady() {
        return configLoaded && clientListenerBound && !shuttingDown;
    }

    /** What is still missing, for the body of a 503; empty when ready. */
    public Optional<String> missing() {
        if (shuttingDown) {
            return Optional.of("shutting down");
        }
        if (!configLoaded) {
            return Optional.of("no serving config loaded");
        }
        if (!clientListenerBound) {
            return Optional.of("client listener not bound");
        }
        return Optional.empty();
    }
}

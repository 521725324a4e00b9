package grid.gateway.app.observe;

import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * Whether the gateway is ready for traffic (docs/design.md §10, {@code /health/ready}): once a serving config is loaded and
 * the client listener is bound, and until the gateway starts shutting down. Each is set once and never cleared; a
 * process that cannot serve exits.
 *
 * <p>Also whether it is alive ({@code /health/live}): a client listener whose socket closed while the gateway was not
 * stopping (Helidon's accept loop gave up) never accepts again, and only a restart helps, so the process then reports
 * itself not live (and not ready).
 *
 * <p>Thread-safe: volatile flags, and a thread-safe check of the client listener.
 */
public final class Readiness {
    private volatile boolean configLoaded;
    private volatile boolean clientListenerBound;
    private volatile boolean shuttingDown;
    private volatile BooleanSupplier clientListening = () -> true;

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

    /** From now on, whether the client listener's socket is still open is {@code listening}. */
    public void watchClientListener(BooleanSupplier listening) {
        clientListening = listening;
    }

    /** Why the process is not alive, for the body of a 503; empty when it is. */
    public Optional<String> notLive() {
        if (!shuttingDown && !clientListening.getAsBoolean()) {
            return Optional.of("client listener stopped accepting connections");
        }
        return Optional.empty();
    }

    /** The gateway is shutting down: it takes no new connection, and load balancers should stop sending. */
    public void shuttingDown() {
        shuttingDown = true;
    }

    /** Whether the config is loaded and the listener bound and listening, and the gateway is not shutting down. */
    public boolean isReady() {
        return missing().isEmpty();
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
        return notLive();
    }
}

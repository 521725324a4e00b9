package grid.gateway.app.tls;

import grid.gateway.app.config.ListenerTls;
import io.helidon.common.tls.Tls;
import io.helidon.webserver.WebServer;
import java.lang.System.Logger.Level;
import java.util.Objects;
import java.util.Optional;

/**
 * Keeps one listener's TLS in step with the config: a rotated certificate, key or client CA is loaded into the running
 * listener ({@link WebServer#reloadTls}), where new connections use it and open ones keep theirs. Turning TLS on or
 * off, or changing {@code client_auth}, needs a restart: such a change is refused, so the config in force stays.
 *
 * <p>Not thread-safe: the config watcher calls {@link #apply} from its one polling thread.
 */
public final class ListenerTlsReloader {
    private static final System.Logger LOG = System.getLogger("grid.gateway.tls");

    private final String key;
    private Optional<ListenerTls> current;

    /**
     * A reloader for the listener configured by {@code key}.
     *
     * @param key {@code server.tls} or {@code server.admin_tls}, for messages
     * @param started the TLS the listener was started with
     */
    public ListenerTlsReloader(String key, Optional<ListenerTls> started) {
        this.key = key;
        this.current = started;
    }

    /** The TLS to start the listener with, or empty for plain HTTP. */
    public Optional<Tls> initial() {
        return current.map(TlsFactory::listener);
    }

    /**
     * Checks that {@code next} can be applied to {@code server} without a restart.
     *
     * @throws IllegalStateException naming what needs a restart
     */
    public void check(Optional<ListenerTls> next) {
        if (current.isPresent() != next.isPresent()) {
            throw new IllegalStateException(
                    key + ": turning TLS " + (next.isPresent() ? "on" : "off") + " needs a restart");
        }
        if (current.isPresent() && current.get().clientAuth() != next.get().clientAuth()) {
            throw new IllegalStateException(key + ".client_auth: a change needs a restart");
        }
    }

    /**
     * Loads {@code next} into {@code server} when its files or settings changed; call {@link #check} first.
     *
     * @return what puts the TLS in force before back into {@code server}
     * @throws RuntimeException when Helidon refuses the new material; the listener keeps the old
     */
    public Runnable apply(Optional<ListenerTls> next, WebServer server) {
        check(next);
        Optional<ListenerTls> before = current;
        if (next.isEmpty() || Objects.equals(fingerprint(current), fingerprint(next))) {
            current = next;
            return () -> current = before;
        }
        // Both built before either is loaded: the way back cannot fail for want of a TLS Helidon builds.
        Tls forward = TlsFactory.listener(next.get());
        Tls back = TlsFactory.listener(before.orElseThrow());
        try {
            server.reloadTls(forward);
        } catch (RuntimeException | Error e) {
            // Helidon loads the key, then the trust: a refusal between the two leaves the listener half-switched.
            reloadBack(server, back, e);
            throw e;
        }
        current = next;
        LOG.log(
                Level.INFO,
                key + ": new certificate in force for new connections ("
                        + next.get().material().certChain().getFirst().getSubjectX500Principal() + ", valid until "
                        + next.get()
                                .material()
                                .certChain()
                                .getFirst()
                                .getNotAfter()
                                .toInstant() + ")");
        return () -> {
            server.reloadTls(back);
            current = before;
            LOG.log(Level.INFO, key + ": the certificate in force before is back for new connections");
        };
    }

    private static void reloadBack(WebServer server, Tls back, Throwable failure) {
        try {
            server.reloadTls(back);
        } catch (RuntimeException | Error again) {
            failure.addSuppressed(again);
        }
    }

    private static Optional<String> fingerprint(Optional<ListenerTls> tls) {
        return tls.map(t -> t.material().fingerprint());
    }
}

package grid.gateway.app.tls;

import grid.gateway.app.config.GatewayConfig;
import grid.gateway.app.config.TransportSecurity;
import grid.gateway.routing.grid.BackendCluster;
import io.helidon.common.tls.Tls;
import io.helidon.webserver.WebServer;
import java.util.Optional;

/**
 * The gateway's TLS at run time: both listeners' and every https cluster's, built from the config at start and
 * switched on each reload that changes a TLS file or setting (a certificate rotation), for new connections.
 *
 * <p>Thread-safe for {@link #forCluster} (any request thread); {@link #apply} is called from the config watcher's one
 * polling thread.
 */
public final class GatewayTls {
    private final UpstreamTlsCache upstream;
    private final ListenerTlsReloader client;
    private final ListenerTlsReloader admin;

    /** The TLS of {@code config}; throws when Helidon cannot build it. */
    public GatewayTls(GatewayConfig config) {
        TransportSecurity tls = config.tls();
        this.upstream = new UpstreamTlsCache(tls, config.grid().clusters());
        this.client = new ListenerTlsReloader("server.tls", tls.server());
        this.admin = new ListenerTlsReloader("server.admin_tls", tls.admin());
    }

    /** The client listener's TLS at start; empty: plain HTTP. */
    public Optional<Tls> clientListener() {
        return client.initial();
    }

    /** The admin listener's TLS at start; empty: plain HTTP. */
    public Optional<Tls> adminListener() {
        return admin.initial();
    }

    /** The TLS in force for {@code cluster}'s https URLs; empty: the JDK's defaults. */
    public Optional<Tls> forCluster(BackendCluster cluster) {
        return upstream.forCluster(cluster);
    }

    /**
     * Switches to the TLS of {@code config}: reloads the listeners whose files changed and the clusters' TLS, all or
     * none: when a listener refuses its new material, what was switched before it is switched back.
     *
     * @return what switches every part back to the TLS in force before (a later step of a reload failed)
     * @throws IllegalStateException when the change needs a restart (a listener's TLS turned on or off, its
     *     {@code client_auth} changed); nothing is switched then
     * @throws RuntimeException when Helidon refuses the new material; nothing is switched then
     */
    public Runnable apply(GatewayConfig config, WebServer clientServer, WebServer adminServer) {
        TransportSecurity next = config.tls();
        client.check(next.server());
        admin.check(next.admin());
        // Every cluster's new TLS is built before any is switched: a failure leaves the clusters' TLS whole.
        Runnable upstreamBack = upstream.update(next, config.grid().clusters());
        Runnable clientBack = () -> {};
        try {
            clientBack = client.apply(next.server(), clientServer);
            Runnable adminBack = admin.apply(next.admin(), adminServer);
            Runnable clientBackNow = clientBack;
            return () -> Undo.all(adminBack, clientBackNow, upstreamBack);
        } catch (RuntimeException | Error e) {
            Undo.after(e, clientBack, upstreamBack);
            throw e;
        }
    }
}

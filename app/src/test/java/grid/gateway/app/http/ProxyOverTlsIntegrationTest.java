package grid.gateway.app.http;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.tls.TestPki;
import grid.gateway.enginesim.EngineSettings;
import io.helidon.common.tls.Tls;
import java.io.IOException;
import java.net.Socket;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;

/**
 * Every {@link ProxyIntegrationTest} (streaming, stored-id tagging, reload, client disconnect) again with TLS on both
 * hops: the client reaches the gateway's {@code server.tls} listener, and the gateway reaches the engines over https
 * with their private CA in {@code gateway.upstream.tls.ca_file}. Certificates are made for the run.
 */
class ProxyOverTlsIntegrationTest extends ProxyIntegrationTest {
    private TestPki pki;
    private TestPki.Pair listener;
    private TestPki.Pair engine;

    @Override
    @BeforeEach
    void start() {
        pki = TestPki.create(dir, "grid");
        listener = pki.issue("gateway");
        engine = pki.issue("engine");
        super.start();
    }

    @Override
    EngineSettings.Builder secured(EngineSettings.Builder settings) {
        return settings.tls(Tls.builder()
                .privateKey(engine.keys().getPrivate())
                .privateKeyCertChain(List.of(engine.certificate()))
                .build());
    }

    @Override
    GatewayHarness gateway(String sites) {
        return new GatewayHarness(dir, config(sites), Optional.of(pki.trustOnly()));
    }

    @Override
    String config(String sites) {
        return GatewayHarness.config(listener.serverTls(), """
                  upstream:
                    tls:
                      ca_file: %s
                """.formatted(pki.caFile()), sites);
    }

    @Override
    Socket connect(int port) throws IOException {
        return pki.trustOnly().getSocketFactory().createSocket("127.0.0.1", port);
    }
}

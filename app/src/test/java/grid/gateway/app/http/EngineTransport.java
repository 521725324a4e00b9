package grid.gateway.app.http;

import grid.gateway.app.tls.TestPki;
import java.io.IOException;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * How the gateway reaches a test's scripted engine: plain HTTP, or TLS under a private CA made for the run, which
 * the gateway trusts through {@code gateway.upstream.tls.ca_file}. One value per test: its engine and its config
 * lines share one CA.
 */
final class EngineTransport {
    private final @Nullable TestPki pki;

    private EngineTransport(@Nullable TestPki pki) {
        this.pki = pki;
    }

    static EngineTransport plain() {
        return new EngineTransport(null);
    }

    /** TLS, its CA and certificates made in {@code dir}. */
    static EngineTransport tls(Path dir) {
        return new EngineTransport(TestPki.create(dir, "engines"));
    }

    /** A scripted engine reached this way. */
    ScriptedUpstream engine() throws IOException {
        return pki == null ? new ScriptedUpstream() : new ScriptedUpstream(pki.context(pki.issue("engine")));
    }

    /** The lines this adds to the {@code gateway.upstream} block (indented four spaces): none for plain HTTP. */
    String upstreamLines() {
        return pki == null ? "" : "    tls:\n      ca_file: " + pki.caFile() + "\n";
    }
}

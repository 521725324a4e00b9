package grid.gateway.app.config;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The TLS blocks as the effective config prints them: paths and settings, never what the files hold.
 *
 * <p>Stateless and thread-safe.
 */
final class TlsYaml {
    private TlsYaml() {}

    /** {@code server.tls} or {@code server.admin_tls}. */
    static Map<String, Object> listener(ListenerTls tls) {
        Map<String, Object> block = new LinkedHashMap<>();
        block.put("cert_file", tls.certFile().toString());
        block.put("key_file", tls.keyFile().toString());
        tls.clientCaFile().ifPresent(ca -> {
            block.put("client_ca_file", ca.toString());
            block.put("client_auth", tls.clientAuth().word());
        });
        return block;
    }

    /** {@code gateway.upstream.tls} or a cluster's {@code tls}. */
    static Map<String, Object> upstream(UpstreamTls tls) {
        Map<String, Object> block = new LinkedHashMap<>();
        tls.caFile().map(Path::toString).ifPresent(ca -> block.put("ca_file", ca));
        tls.certFile().map(Path::toString).ifPresent(cert -> block.put("cert_file", cert));
        tls.keyFile().map(Path::toString).ifPresent(key -> block.put("key_file", key));
        tls.serverName().ifPresent(name -> block.put("server_name", name));
        block.put("insecure_skip_verify", tls.insecureSkipVerify());
        return block;
    }
}

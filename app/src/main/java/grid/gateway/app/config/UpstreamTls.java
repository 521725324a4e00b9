package grid.gateway.app.config;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.Optional;

/**
 * {@code gateway.upstream.tls} or {@code sites[*].clusters[*].tls}: how the gateway checks an https cluster's
 * certificate, and which certificate it shows when the cluster asks for one (mutual TLS). Used for forwarded
 * requests and for the cluster's load scrapes alike.
 *
 * <p>Thread-safe (immutable).
 *
 * @param caFile {@code ca_file}: PEM certificates that replace the JDK's trusted authorities; empty: the JDK's
 * @param certFile {@code cert_file}: PEM client certificate chain, shown when the cluster asks
 * @param keyFile {@code key_file}: PEM (PKCS#8) private key of that certificate
 * @param serverName {@code server_name}: the name sent in SNI and checked against the certificate when the URL's
 *     host is not the certificate's; empty: the URL's host
 * @param insecureSkipVerify {@code insecure_skip_verify}: no certificate or name check at all; only with
 *     {@code development.allow_insecure_tls}
 * @param material what the files held, checked
 */
public record UpstreamTls(
        Optional<Path> caFile,
        Optional<Path> certFile,
        Optional<Path> keyFile,
        Optional<String> serverName,
        boolean insecureSkipVerify,
        TlsMaterial material) {
    public UpstreamTls {
        requireNonNull(caFile, "caFile");
        requireNonNull(certFile, "certFile");
        requireNonNull(keyFile, "keyFile");
        requireNonNull(serverName, "serverName");
        requireNonNull(material, "material");
    }
}

package grid.gateway.app.config;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code server.tls} or {@code server.admin_tls}: the listener serves HTTPS with this certificate, and with a
 * {@code client_ca_file} asks clients for a certificate of that CA (mutual TLS).
 *
 * <p>Thread-safe (immutable).
 *
 * @param certFile {@code cert_file}: PEM certificate chain, the listener's own certificate first
 * @param keyFile {@code key_file}: PEM (PKCS#8) private key of that certificate
 * @param clientCaFile {@code client_ca_file}: PEM certificates a client's certificate must lead to
 * @param clientAuth {@code client_auth}: whether a client must show a certificate; {@link ClientAuth#NONE} without a
 *     {@code client_ca_file}
 * @param material what the files held, checked
 */
public record ListenerTls(
        Path certFile, Path keyFile, Optional<Path> clientCaFile, ClientAuth clientAuth, TlsMaterial material) {
    public ListenerTls {
        requireNonNull(certFile, "certFile");
        requireNonNull(keyFile, "keyFile");
        requireNonNull(clientCaFile, "clientCaFile");
        requireNonNull(clientAuth, "clientAuth");
        requireNonNull(material, "material");
    }

    /** Whether a client of a TLS listener must show a certificate. */
    public enum ClientAuth {
        /** No client certificate is asked for (no {@code client_ca_file}). */
        NONE,
        /** A client may show one; one that does must lead to {@code client_ca_file}. */
        OPTIONAL,
        /** A client without a certificate of {@code client_ca_file} is refused in the handshake. */
        REQUIRED;

        /** The config word: the constant's name in lower case. */
        public String word() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}

package grid.gateway.app.tls;

import grid.gateway.app.config.ListenerTls;
import grid.gateway.app.config.UpstreamTls;
import io.helidon.common.tls.Tls;
import io.helidon.common.tls.TlsClientAuth;
import io.helidon.common.tls.TlsConfig;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLParameters;

/**
 * Builds Helidon {@link Tls} from the config's TLS blocks. Only Helidon's and the JDK's TLS: the certificates and
 * keys were read and checked by the config loader.
 *
 * <p>Stateless and thread-safe.
 */
public final class TlsFactory {
    private TlsFactory() {}

    /** A listener's TLS: its certificate and key, and with a client CA, mutual TLS as {@code client_auth} says. */
    public static Tls listener(ListenerTls settings) {
        TlsConfig.Builder builder = Tls.builder()
                .privateKey(settings.material().privateKey().orElseThrow())
                .privateKeyCertChain(settings.material().certChain())
                .clientAuth(
                        switch (settings.clientAuth()) {
                            case NONE -> TlsClientAuth.NONE;
                            case OPTIONAL -> TlsClientAuth.OPTIONAL;
                            case REQUIRED -> TlsClientAuth.REQUIRED;
                        });
        if (!settings.material().trust().isEmpty()) {
            builder.trust(settings.material().trust());
        }
        return builder.build();
    }

    /**
     * An https cluster's TLS: its CA in place of the JDK's, its client certificate, the name checked (hostname
     * verification always on, against {@code server_name} when set), or no check at all with
     * {@code insecure_skip_verify} (development only; the loader refuses it otherwise).
     */
    public static Tls upstream(UpstreamTls settings) {
        TlsConfig.Builder builder = Tls.builder();
        settings.material().privateKey().ifPresent(builder::privateKey);
        if (!settings.material().certChain().isEmpty()) {
            builder.privateKeyCertChain(settings.material().certChain());
        }
        if (settings.insecureSkipVerify()) {
            return builder.trustAll(true)
                    .endpointIdentificationAlgorithm(Tls.ENDPOINT_IDENTIFICATION_NONE)
                    .build();
        }
        if (!settings.material().trust().isEmpty()) {
            builder.trust(settings.material().trust());
        }
        settings.serverName().ifPresent(name -> {
            // Sent as SNI; the JDK's HTTPS identity check tries the SNI name first, so the certificate must hold it.
            SSLParameters parameters = new SSLParameters();
            parameters.setServerNames(List.of(new SNIHostName(name)));
            parameters.setEndpointIdentificationAlgorithm(Tls.ENDPOINT_IDENTIFICATION_HTTPS);
            builder.sslParameters(parameters);
        });
        return builder.endpointIdentificationAlgorithm(Tls.ENDPOINT_IDENTIFICATION_HTTPS)
                .build();
    }
}

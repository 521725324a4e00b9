package grid.gateway.app.forward;

import io.helidon.common.tls.Tls;

/**
 * The TLS of an https engine URL without a {@code tls} block of its own or {@code gateway.upstream.tls}: the JDK's
 * trust and the HTTPS name check. One for the process, built when first needed, so that every such connection has the
 * same {@link Origin} and pools with the others.
 */
final class JdkTls {
    private JdkTls() {}

    static Tls get() {
        return Holder.TLS;
    }

    /** Built at the first call of {@link #get()} (the class initialisation is the JVM's own lazy, once-only step). */
    private static final class Holder {
        static final Tls TLS = Tls.builder()
                .endpointIdentificationAlgorithm(Tls.ENDPOINT_IDENTIFICATION_HTTPS)
                .build();
    }
}

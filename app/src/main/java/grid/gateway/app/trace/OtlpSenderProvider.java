package grid.gateway.app.trace;

import io.opentelemetry.sdk.common.export.HttpSender;
import io.opentelemetry.sdk.common.export.HttpSenderConfig;
import io.opentelemetry.sdk.common.export.HttpSenderProvider;

/**
 * Gives the OTLP exporter the gateway's {@link OtlpSender}; found through {@link java.util.ServiceLoader}
 * ({@code META-INF/services}), the only sender on the class path.
 */
public final class OtlpSenderProvider implements HttpSenderProvider {
    /** Made by {@link java.util.ServiceLoader}. */
    public OtlpSenderProvider() {
        // Nothing to set up.
    }

    @Override
    public HttpSender createSender(HttpSenderConfig config) {
        return new OtlpSender(config);
    }
}

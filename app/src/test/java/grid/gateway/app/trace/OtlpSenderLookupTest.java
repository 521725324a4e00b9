package grid.gateway.app.trace;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.sdk.common.export.Compressor;
import io.opentelemetry.sdk.common.export.HttpSenderConfig;
import io.opentelemetry.sdk.common.export.MessageWriter;
import io.opentelemetry.sdk.common.export.ProxyOptions;
import io.opentelemetry.sdk.common.export.RetryPolicy;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.X509TrustManager;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An export to a collector whose name the resolver never answers ({@link NeverAnsweringResolver}, the JVM's resolver
 * in tests) ends at the export's deadline: the lookup, which the JDK cannot interrupt, is part of what the deadline
 * bounds, not a wait before it.
 */
class OtlpSenderLookupTest {
    private static final Duration DEADLINE = Duration.ofMillis(500);

    private @Nullable OtlpSender sender;

    @AfterEach
    void release() {
        if (sender != null) {
            sender.shutdown();
        }
        NeverAnsweringResolver.release();
    }

    @Test
    void collectorNameNeverResolves_exportFailsAtItsDeadline() throws Exception {
        int asked = NeverAnsweringResolver.asked();
        sender = new OtlpSender(new Config(
                URI.create("http://collector" + NeverAnsweringResolver.SUFFIX + ":4318/v1/traces"), DEADLINE));
        CompletableFuture<Throwable> failed = new CompletableFuture<>();

        sender.send(new Empty(), answer -> failed.complete(new AssertionError("answered")), failed::complete);

        // The resolver holds until the test ends: an export that waited for it would not end here.
        Throwable why = failed.get(10, TimeUnit.SECONDS);
        assertThat(why).isInstanceOf(HttpTimeoutException.class);
        assertThat(NeverAnsweringResolver.asked())
                .as("the lookup reached the resolver")
                .isGreaterThan(asked);
    }

    /** An empty span batch. */
    private static final class Empty implements MessageWriter {
        @Override
        public void writeMessage(OutputStream output) {
            // Nothing to write.
        }

        @Override
        public int getContentLength() {
            return 0;
        }
    }

    /** The exporter's settings: plain http, the default retry policy, no proxy, no compression. */
    private record Config(URI endpoint, Duration timeout) implements HttpSenderConfig {
        @Override
        public URI getEndpoint() {
            return endpoint;
        }

        @Override
        public String getContentType() {
            return "application/x-protobuf";
        }

        @Override
        public @Nullable Compressor getCompressor() {
            return null;
        }

        @Override
        public Duration getTimeout() {
            return timeout;
        }

        @Override
        public Duration getConnectTimeout() {
            return timeout;
        }

        @Override
        public Supplier<Map<String, List<String>>> getHeadersSupplier() {
            return Map::of;
        }

        @Override
        public @Nullable ProxyOptions getProxyOptions() {
            return null;
        }

        @Override
        public RetryPolicy getRetryPolicy() {
            return RetryPolicy.getDefault();
        }

        @Override
        public @Nullable SSLContext getSslContext() {
            return null;
        }

        @Override
        public @Nullable X509TrustManager getTrustManager() {
            return null;
        }

        @Override
        public @Nullable ExecutorService getExecutorService() {
            return null;
        }
    }
}

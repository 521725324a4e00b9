package grid.gateway.app.trace;

import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.common.export.Compressor;
import io.opentelemetry.sdk.common.export.HttpResponse;
import io.opentelemetry.sdk.common.export.HttpSender;
import io.opentelemetry.sdk.common.export.HttpSenderConfig;
import io.opentelemetry.sdk.common.export.MessageWriter;
import io.opentelemetry.sdk.common.export.RetryPolicy;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Predicate;
import javax.net.ssl.SSLException;

/**
 * Posts span batches to the collector with the JDK's HTTP client, each export bounded whole by the exporter's
 * timeout: the collector's name lookup, connecting, the TLS handshake, sending, the answer's head and its body, and the
 * retries between. The client runs an exchange, its lookup included, on its own worker threads ({@code sendAsync}),
 * and the export waits for it only until the deadline; a lookup the resolver does not answer (the JDK cannot interrupt
 * one) holds that worker until the resolver gives up, never the export. An
 * attempt still running at the deadline is cancelled, which closes its connection; the answer's body is kept up to
 * {@link #ANSWER_LIMIT} bytes ({@link LimitedAnswer}). A 429, 502, 503 or 504 answer or a failed connection is tried
 * again after the retry policy's backoff (or the answer's {@code Retry-After} in seconds) while the deadline leaves
 * room for it, never past it. {@link #shutdown} aborts what is in flight and returns at once.
 *
 * <p>Each export runs on its own virtual thread; the batch span processor starts one at a time and gives up on it at
 * the same timeout. Thread-safe.
 */
final class OtlpSender implements HttpSender {
    /** The most of an answer's body kept: the exporter reads only a status message from it. */
    static final int ANSWER_LIMIT = 64 * 1024;

    private static final Set<Integer> RETRIED = Set.of(429, 502, 503, 504);

    private final HttpSenderConfig config;
    private final HttpClient client;
    private final Predicate<IOException> retried;
    private volatile boolean shut;

    OtlpSender(HttpSenderConfig config) {
        this.config = config;
        Duration timeout = config.getTimeout();
        Duration connect = config.getConnectTimeout().compareTo(timeout) < 0 ? config.getConnectTimeout() : timeout;
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(connect);
        if (config.getSslContext() != null) {
            builder.sslContext(config.getSslContext());
        }
        if (config.getProxyOptions() != null) {
            builder.proxy(config.getProxyOptions().getProxySelector());
        }
        this.client = builder.build();
        RetryPolicy policy = config.getRetryPolicy();
        Predicate<IOException> given = policy == null ? null : policy.getRetryExceptionPredicate();
        this.retried =
                given != null ? given : e -> !(e instanceof SSLException) && !(e instanceof LimitedAnswer.TooLong);
    }

    @Override
    public void send(MessageWriter writer, Consumer<HttpResponse> onResponse, Consumer<Throwable> onError) {
        long deadline = System.nanoTime() + config.getTimeout().toNanos();
        if (shut) {
            onError.accept(new IOException("the exporter is shut down"));
            return;
        }
        HttpRequest.Builder request;
        try {
            request = request(writer);
        } catch (IOException | RuntimeException e) {
            onError.accept(e);
            return;
        }
        Thread.ofVirtual().name("otlp-export").start(() -> {
            try {
                onResponse.accept(export(request, deadline));
            } catch (IOException | RuntimeException | InterruptedException e) {
                onError.accept(e);
            }
        });
    }

    private HttpRequest.Builder request(MessageWriter writer) throws IOException {
        HttpRequest.Builder request = HttpRequest.newBuilder(config.getEndpoint());
        Map<String, List<String>> headers = config.getHeadersSupplier().get();
        if (headers != null) {
            headers.forEach((name, values) -> values.forEach(value -> request.header(name, value)));
        }
        request.header("Content-Type", config.getContentType());
        ByteArrayOutputStream body = new ByteArrayOutputStream(Math.max(writer.getContentLength(), 32));
        Compressor compressor = config.getCompressor();
        if (compressor == null) {
            writer.writeMessage(body);
        } else {
            request.header("Content-Encoding", compressor.getEncoding());
            try (OutputStream compressed = compressor.compress(body)) {
                writer.writeMessage(compressed);
            }
        }
        return request.POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray()));
    }

    private HttpResponse export(HttpRequest.Builder request, long deadline) throws IOException, InterruptedException {
        RetryPolicy policy = config.getRetryPolicy();
        int attempts = policy == null ? 1 : policy.getMaxAttempts();
        long backoff = policy == null ? 0 : policy.getInitialBackoff().toNanos();
        for (int attempt = 1; ; attempt++) {
            long wait;
            try {
                HttpResponse answer = attempt(request, deadline);
                if (!RETRIED.contains(answer.getStatusCode()) || attempt >= attempts) {
                    return answer;
                }
                wait = ((Answer) answer).retryAfter().orElse(jittered(backoff));
                if (wait > deadline - System.nanoTime()) {
                    return answer;
                }
            } catch (IOException e) {
                wait = jittered(backoff);
                if (!retried.test(e) || attempt >= attempts || wait >= deadline - System.nanoTime()) {
                    throw e;
                }
            }
            TimeUnit.NANOSECONDS.sleep(wait);
            if (policy != null) {
                backoff = Math.min(
                        (long) (backoff * policy.getBackoffMultiplier()),
                        policy.getMaxBackoff().toNanos());
            }
        }
    }

    private HttpResponse attempt(HttpRequest.Builder request, long deadline) throws IOException, InterruptedException {
        long left = deadline - System.nanoTime();
        if (left <= 0 || shut) {
            throw new HttpTimeoutException("export deadline passed");
        }
        CompletableFuture<java.net.http.HttpResponse<byte[]>> sent = client.sendAsync(
                request.timeout(Duration.ofNanos(left)).build(), head -> new LimitedAnswer(ANSWER_LIMIT));
        try {
            return new Answer(sent.get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS));
        } catch (TimeoutException e) {
            throw new HttpTimeoutException("export deadline passed");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IOException(e.getCause());
        } finally {
            // Aborts the exchange (and closes its connection) if it is still running.
            sent.cancel(true);
        }
    }

    private static long jittered(long nanos) {
        return (long) (nanos * java.util.concurrent.ThreadLocalRandom.current().nextDouble(0.8, 1.2));
    }

    @Override
    public CompletableResultCode shutdown() {
        shut = true;
        client.shutdownNow();
        return CompletableResultCode.ofSuccess();
    }

    /** One answer: its status, its body as kept, and a {@code Retry-After} in seconds. */
    private record Answer(java.net.http.HttpResponse<byte[]> answer) implements HttpResponse {
        @Override
        public int getStatusCode() {
            return answer.statusCode();
        }

        @Override
        public String getStatusMessage() {
            return String.valueOf(answer.statusCode());
        }

        @Override
        public byte[] getResponseBody() {
            return answer.body().clone();
        }

        java.util.Optional<Long> retryAfter() {
            return answer.headers()
                    .firstValue("Retry-After")
                    .filter(value -> value.matches("[0-9]{1,6}"))
                    .map(value -> TimeUnit.SECONDS.toNanos(Long.parseLong(value)));
        }
    }
}

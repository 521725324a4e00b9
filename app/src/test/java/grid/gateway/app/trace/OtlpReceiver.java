package grid.gateway.app.trace;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A real OTLP/HTTP trace receiver for tests: an HTTP server on 127.0.0.1 (port 0) that accepts {@code POST
 * /v1/traces} with a protobuf {@code ExportTraceServiceRequest}, decodes it with the OpenTelemetry proto classes, and
 * answers as a collector does. What it received is waited for with a bound, never slept for.
 */
public final class OtlpReceiver implements AutoCloseable {
    /** A decoded span and the {@code service.name} of the resource it came with. */
    public record Received(String service, Span span) {}

    private final HttpServer server;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition arrived = lock.newCondition();
    private final List<Received> spans = new ArrayList<>();
    private final List<String> refusals = new ArrayList<>();

    public OtlpReceiver() {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", this::handle);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.start();
    }

    /** The base URL, as {@code tracing.otlp_endpoint} is written. */
    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange;
                InputStream in = exchange.getRequestBody()) {
            byte[] body = in.readAllBytes();
            String type = exchange.getRequestHeaders().getFirst("Content-Type");
            if (!exchange.getRequestMethod().equals("POST")
                    || !exchange.getRequestURI().getPath().equals("/v1/traces")
                    || !"application/x-protobuf".equals(type)) {
                refused(exchange.getRequestMethod() + " " + exchange.getRequestURI() + " " + type);
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            add(ExportTraceServiceRequest.parseFrom(body));
            byte[] answer = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
            exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, answer.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(answer);
            }
        }
    }

    private void add(ExportTraceServiceRequest request) {
        lock.lock();
        try {
            for (ResourceSpans resource : request.getResourceSpansList()) {
                String service = resource.getResource().getAttributesList().stream()
                        .filter(kv -> kv.getKey().equals("service.name"))
                        .map(kv -> kv.getValue().getStringValue())
                        .findFirst()
                        .orElse("");
                for (ScopeSpans scope : resource.getScopeSpansList()) {
                    scope.getSpansList().forEach(span -> spans.add(new Received(service, span)));
                }
            }
            arrived.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void refused(String what) {
        lock.lock();
        try {
            refusals.add(what);
        } finally {
            lock.unlock();
        }
    }

    /** At least {@code count} spans received, waiting at most {@code bound}; fails the test otherwise. */
    public List<Received> await(int count, Duration bound) throws InterruptedException {
        long left = bound.toNanos();
        lock.lock();
        try {
            while (spans.size() < count) {
                if (left <= 0) {
                    throw new AssertionError(
                            "received " + spans.size() + " spans of " + count + "; refused " + refusals);
                }
                left = arrived.awaitNanos(left);
            }
            return List.copyOf(spans);
        } finally {
            lock.unlock();
        }
    }

    /** The requests it refused (wrong path, method or content type). */
    List<String> refusals() {
        lock.lock();
        try {
            return List.copyOf(refusals);
        } finally {
            lock.unlock();
        }
    }

    /** The string value of attribute {@code key} of {@code span}. */
    public static String text(Span span, String key) {
        return attribute(span, key).getValue().getStringValue();
    }

    /** The integer value of attribute {@code key}. */
    public static long number(Span span, String key) {
        return attribute(span, key).getValue().getIntValue();
    }

    /** The boolean value of attribute {@code key}. */
    public static boolean flag(Span span, String key) {
        return attribute(span, key).getValue().getBoolValue();
    }

    private static KeyValue attribute(Span span, String key) {
        return span.getAttributesList().stream()
                .filter(kv -> kv.getKey().equals(key))
                .findFirst()
                .orElseThrow(() -> new AssertionError("span " + span.getName() + " has no attribute " + key));
    }

    @Override
    public void close() {
        server.stop(0);
    }
}

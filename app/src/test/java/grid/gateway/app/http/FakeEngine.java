package grid.gateway.app.http;

import io.helidon.common.tls.Tls;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.WebServerConfig;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Test fixture: a minimal engine on 127.0.0.1, port 0, that records every request and answers as a test scripts
 * it (MockWebServer-style). The full vLLM-like simulator is the conformance module's; this one only needs to be
 * scriptable.
 */
final class FakeEngine implements AutoCloseable {
    /** What the engine received. */
    record Received(String method, String target, String body, io.helidon.http.Headers headers) {}

    /** How the engine answers. */
    sealed interface Answer {
        record Json(int status, String body) implements Answer {}

        /** Events written one by one; before event {@code i > 0} the engine waits for {@code gates.get(i-1)}. */
        record Events(List<String> events, List<CountDownLatch> gates, CountDownLatch aborted) implements Answer {}
    }

    final String name;
    final BlockingQueue<Received> received = new LinkedBlockingQueue<>();
    volatile Function<Received, Answer> dispatcher;
    /** What {@code GET /metrics} reports as {@code vllm:num_requests_waiting}; scrapes are not recorded. */
    volatile double waiting;

    private final WebServer server;
    private final boolean tls;

    private FakeEngine(String name, Optional<Tls> tls) {
        this.tls = tls.isPresent();
        this.name = name;
        this.dispatcher = r -> new Answer.Json(
                200,
                "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"engine\":\"" + name + "\",\"usage\":"
                        + "{\"prompt_tokens\":10,\"prompt_tokens_details\":{\"cached_tokens\":0}}}");
        WebServerConfig.Builder builder = WebServer.builder();
        tls.ifPresent(builder::tls);
        this.server = builder.host("127.0.0.1")
                .port(0)
                .routing(r -> r.any(this::handle))
                .build()
                .start();
    }

    static FakeEngine start(String name) {
        return new FakeEngine(name, Optional.empty());
    }

    /** An engine that serves HTTPS only, with {@code tls}. */
    static FakeEngine startTls(String name, Tls tls) {
        return new FakeEngine(name, Optional.of(tls));
    }

    String url() {
        return (tls ? "https" : "http") + "://127.0.0.1:" + server.port();
    }

    Received take() throws InterruptedException {
        Received r = received.poll(10, TimeUnit.SECONDS);
        if (r == null) {
            throw new AssertionError(name + " received no request");
        }
        return r;
    }

    private void handle(ServerRequest request, ServerResponse response) {
        if (request.path().rawPath().equals("/metrics")) {
            response.send("vllm:num_requests_waiting{engine=\"0\",model_name=\"demo-model\"} " + waiting + "\n");
            return;
        }
        String query = request.query().rawValue();
        byte[] body = request.content().hasEntity() ? request.content().as(byte[].class) : new byte[0];
        Received r = new Received(
                request.prologue().method().text(),
                request.path().rawPath() + (query.isEmpty() ? "" : "?" + query),
                new String(body, StandardCharsets.UTF_8),
                request.headers());
        received.add(r);
        switch (dispatcher.apply(r)) {
            case Answer.Json json -> {
                response.status(Status.create(json.status()));
                response.header(HeaderValues.CONTENT_TYPE_JSON);
                response.send(json.body().getBytes(StandardCharsets.UTF_8));
            }
            case Answer.Events events -> stream(response, events);
        }
    }

    private static void stream(ServerResponse response, Answer.Events events) {
        response.header(HeaderNames.CONTENT_TYPE, "text/event-stream");
        try (OutputStream out = response.outputStream()) {
            for (int i = 0; i < events.events().size(); i++) {
                if (i > 0 && !events.gates().get(i - 1).await(10, TimeUnit.SECONDS)) {
                    throw new AssertionError("gate " + i + " never opened");
                }
                out.write(events.events().get(i).getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
        } catch (IOException | UncheckedIOException | io.helidon.webserver.ServerConnectionException e) {
            events.aborted().countDown(); // the gateway closed the connection: the client went away
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        server.stop();
    }
}

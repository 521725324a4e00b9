package grid.gateway.app.load;

import io.helidon.http.Status;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.Handler;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Test fixture: engines on one loopback web server, port 0. {@code GET /<name>/metrics} runs the handler set for
 * {@code name} (404 when none) and counts the request.
 */
final class FakeEngines implements AutoCloseable {
    private final Map<String, Handler> handlers = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> requests = new ConcurrentHashMap<>();
    private final WebServer server;

    FakeEngines() {
        server = WebServer.builder()
                .host("127.0.0.1")
                .port(0)
                .routing(routing -> routing.get("/{name}/metrics", (req, res) -> {
                    String name = req.path().pathParameters().get("name");
                    requests.computeIfAbsent(name, n -> new AtomicInteger()).incrementAndGet();
                    handlers.getOrDefault(
                                    name,
                                    (rq, rs) -> rs.status(Status.NOT_FOUND_404).send())
                            .handle(req, res);
                }))
                .build()
                .start();
    }

    /** Serves {@code text} with status 200 as {@code name}'s metrics. */
    void answer(String name, String text) {
        handlers.put(name, (req, res) -> res.send(text));
    }

    /** Sets what {@code name}'s metrics endpoint does. */
    void handle(String name, Handler handler) {
        handlers.put(name, handler);
    }

    /** The base URL of engine {@code name}: its metrics are at {@code <base>/metrics}. */
    URI base(String name) {
        return URI.create("http://127.0.0.1:" + server.port() + "/" + name);
    }

    /** How many times {@code name}'s metrics were requested. */
    int requests(String name) {
        AtomicInteger count = requests.get(name);
        return count == null ? 0 : count.get();
    }

    @Override
    public void close() {
        server.stop();
    }
}

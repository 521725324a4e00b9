package grid.gateway.app.observe;

import com.sun.net.httpserver.HttpServer;
import grid.gateway.app.GatewayHarness;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Traffic that makes every lazily created series appear, through the shared {@link GatewayHarness}: the real gateway
 * in front of two simulated engines at two sites, so that a scrape of the admin {@code /metrics} shows every metric
 * family the gateway exports.
 */
final class ExportedTraffic {
    private static final String CHAT =
            "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"%s\"}]}";

    private ExportedTraffic() {}

    /**
     * The gateway at site east in front of engines east-a and west-a (site west), both simulated, with
     * {@code queued_request_seconds: auto}; west-a's {@code metrics_url} is a page with its queue depth and no other
     * engine series (a page of its own on a loopback port), so the calibration series it lacks show too.
     */
    static GatewayHarness twoSites(Path dir) {
        var east = GatewayHarness.engine("east-a");
        var west = GatewayHarness.engine("west-a");
        HttpServer depthOnly = depthOnlyPage();
        return new GatewayHarness(
                dir,
                """
                server: {port: 0, admin_port: 0}
                gateway: {site: east}
                sites:
                  - name: east
                    clusters: [{name: east-a, url: "%s", models: [demo-model]}]
                  - name: west
                    clusters: [{name: west-a, url: "%s", models: [demo-model], metrics_url: "%s"}]
                plugins:
                  grid_site_route:
                    prefix_affinity: {queued_request_seconds: auto}
                """.formatted(
                                east.url(),
                                west.url(),
                                "http://127.0.0.1:" + depthOnly.getAddress().getPort() + "/metrics"),
                east,
                west,
                () -> depthOnly.stop(0));
    }

    /** A page on 127.0.0.1, port 0, that says a queue depth of 0 and nothing else. */
    private static HttpServer depthOnlyPage() {
        try {
            HttpServer page = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            page.createContext("/metrics", exchange -> {
                byte[] body = "vllm:num_requests_waiting 0\n".getBytes(StandardCharsets.US_ASCII);
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
                exchange.close();
            });
            page.start();
            return page;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sends keyed, unkeyed and pinned requests through the client port, then scrapes the admin port. */
    static String thenScrape(GatewayHarness gateway) {
        gateway.server.scrapeNow();
        // Two candidates and a 1 KiB prompt: an affinity outcome, a confirmation into a prefix LRU, and cached
        // tokens once the engine that answered first sees the prompt again.
        for (int i = 0; i < 3; i++) {
            gateway.post("/v1/chat/completions", CHAT.formatted("x".repeat(1024)));
        }
        gateway.post("/v1/chat/completions", "not json"); // grid_keyer_no_keys_total{reason="invalid_json"}
        gateway.get("/v1/responses/resp_gone.00000000..abc"); // grid_route_pinned_total{outcome="not_found"}
        return gateway.send(HttpRequest.newBuilder(
                                URI.create("http://127.0.0.1:" + gateway.server.adminPort() + "/metrics"))
                        .GET()
                        .build())
                .body();
    }
}

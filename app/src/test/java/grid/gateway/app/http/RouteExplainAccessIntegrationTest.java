package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.GatewayRuntime;
import grid.gateway.app.GatewayServer;
import grid.gateway.app.config.ConfigLoader;
import grid.gateway.routing.time.ManualClock;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who can reach the admin plane, on real sockets: the admin listener binds loopback unless told otherwise;
 * {@code POST /route/explain} (a prefix oracle) answers 404 until enabled, then only to a bearer token of its token
 * file; every call is logged and counted; its body is read under the client bodies' deadline and budget.
 */
class RouteExplainAccessIntegrationTest {
    private static final String CHAT_BODY =
            "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"a guessed prompt\"}]}";
    private static final String CALLS = "grid_admin_route_explain_calls_total";

    @TempDir
    Path dir;

    private final Logger logger = Logger.getLogger("grid.gateway.admin");
    private final List<String> logged = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            logged.add(record.getLevel() + " " + record.getMessage());
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    @BeforeEach
    void captureLog() {
        logger.addHandler(capture);
    }

    @AfterEach
    void releaseLog() {
        logger.removeHandler(capture);
    }

    private GatewayHarness gateway(String serverExtra) {
        return new GatewayHarness(
                dir, GatewayHarness.config(serverExtra, "", GatewayHarness.oneEngine("http://127.0.0.1:9")));
    }

    private static HttpResponse<String> explain(GatewayHarness gateway, Optional<String> authorization) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(
                        "http://127.0.0.1:" + gateway.server.adminPort() + "/route/explain?path=/v1/chat/completions"))
                .POST(HttpRequest.BodyPublishers.ofString(CHAT_BODY));
        authorization.ifPresent(value -> request.header("Authorization", value));
        return gateway.send(request.build());
    }

    @Test
    void adminListener_bindsLoopbackOnly_byDefault() throws IOException {
        Path file = Files.writeString(
                dir.resolve("gateway.yaml"),
                GatewayHarness.config("  host: 127.0.0.1", "", GatewayHarness.oneEngine("http://127.0.0.1:9")));
        // The config's own addresses (a harness would force 127.0.0.1 on both listeners).
        try (GatewayServer gateway = GatewayServer.start(
                ConfigLoader.load(file),
                new GatewayRuntime(new ManualClock(), new SplittableRandom(7), Optional.empty()))) {
            assertThat(Answerer.at("127.0.0.1", gateway.adminPort())).isEqualTo(Answerer.ADMIN);
            // 127.0.0.2 is loopback too, but not the address the admin listener is bound to. Whether anything answers
            // there is not the gateway's to say: another listener may hold 127.0.0.2 at the same port number.
            assertThat(Answerer.at("127.0.0.2", gateway.adminPort())).isNotEqualTo(Answerer.ADMIN);
        }
    }

    @Test
    void routeExplain_offByDefault_answers404_loggedAndCounted() {
        try (GatewayHarness gateway = gateway("")) {
            HttpResponse<String> answer = explain(gateway, Optional.of("Bearer " + GatewayHarness.EXPLAIN_TOKEN));

            assertThat(answer.statusCode()).isEqualTo(404);
            assertThat(answer.body()).contains("\"code\":\"route_explain_disabled\"");
            assertThat(gateway.metric(CALLS, "result=\"disabled\"")).isEqualTo(1);
            assertThat(logged).containsExactly("INFO route explain disabled: POST /v1/chat/completions from 127.0.0.1");
        }
    }

    @Test
    void routeExplain_enabled_answersOnlyABearerTokenOfItsFile() {
        try (GatewayHarness gateway = gateway(GatewayHarness.routeExplain(dir))) {
            HttpResponse<String> none = explain(gateway, Optional.empty());
            HttpResponse<String> wrong = explain(gateway, Optional.of("Bearer explain-token-of-the-tests-0124"));
            HttpResponse<String> basic = explain(gateway, Optional.of("Basic " + GatewayHarness.EXPLAIN_TOKEN));
            HttpResponse<String> right = explain(gateway, Optional.of("bearer " + GatewayHarness.EXPLAIN_TOKEN));

            for (HttpResponse<String> refused : List.of(none, wrong, basic)) {
                assertThat(refused.statusCode()).isEqualTo(401);
                assertThat(refused.headers().firstValue("WWW-Authenticate"))
                        .hasValue("Bearer realm=\"grid-gateway admin\"");
                assertThat(refused.body()).contains("\"code\":\"unauthorized\"").doesNotContain("\"keys\"");
            }
            assertThat(right.statusCode()).as(right.body()).isEqualTo(200);
            assertThat(right.body()).contains("\"outcome\"");
            assertThat(gateway.metric(CALLS, "result=\"unauthorized\"")).isEqualTo(3);
            assertThat(gateway.metric(CALLS, "result=\"answered\"")).isEqualTo(1);
            assertThat(logged).hasSize(4).noneMatch(line -> line.contains("explain-token"));
            assertThat(logged.get(0))
                    .isEqualTo("WARNING route explain unauthorized: POST /v1/chat/completions from 127.0.0.1");
        }
    }

    @Test
    void routeExplain_tokenFileRotated_newTokenAnswers_oldOneNot() throws IOException {
        Path file = Files.writeString(
                dir.resolve("gateway.yaml"),
                GatewayHarness.config(
                        GatewayHarness.routeExplain(dir), "", GatewayHarness.oneEngine("http://127.0.0.1:9")));
        try (GatewayHarness gateway = GatewayHarness.fromFile(file)) {
            assertThat(explain(gateway, Optional.of("Bearer " + GatewayHarness.EXPLAIN_TOKEN))
                            .statusCode())
                    .isEqualTo(200);
            Files.writeString(dir.resolve("explain-token"), "a-rotated-token-0123456789\n");
            gateway.server.reloadNow();

            assertThat(explain(gateway, Optional.of("Bearer " + GatewayHarness.EXPLAIN_TOKEN))
                            .statusCode())
                    .isEqualTo(401);
            assertThat(explain(gateway, Optional.of("Bearer a-rotated-token-0123456789"))
                            .statusCode())
                    .isEqualTo(200);
        }
    }

    @Test
    void routeExplainBody_slowerThanBodyTimeout_answers408AndCloses() {
        try (GatewayHarness gateway = gateway(GatewayHarness.routeExplain(dir) + "  body_timeout_ms: 300\n");
                RawHttp raw = new RawHttp(gateway.server.adminPort())) {
            raw.send(head(100) + "{\"model\":");

            RawHttp.Reply reply = raw.read(2_000);
            assertThat(reply.status()).as(reply.text()).isEqualTo(408);
            assertThat(reply.body()).contains("\"code\":\"body_timeout\"");
            assertThat(reply.closed()).isTrue();
            assertThat(gateway.metric(CALLS, "result=\"refused\"")).isEqualTo(1);
        }
    }

    @Test
    void routeExplainBody_heldInTheClientBodiesBudget_overItAnswers503() {
        try (GatewayHarness gateway = gateway(GatewayHarness.routeExplain(dir) + "  max_inflight_body_bytes: 4096\n");
                RawHttp holder = new RawHttp(gateway.server.adminPort());
                RawHttp second = new RawHttp(gateway.server.adminPort())) {
            // A body of the largest size, not yet complete: its buffer holds the whole budget.
            holder.send(head(4096) + "{\"model\":");
            GatewayHarness.await(
                    "the first body's buffer reserved", () -> gateway.metric("grid_inflight_body_bytes", "") == 4096);

            second.send(head(CHAT_BODY.length()) + CHAT_BODY);
            RawHttp.Reply reply = second.read(2_000);
            assertThat(reply.status()).as(reply.text()).isEqualTo(503);
            assertThat(reply.body()).contains("\"code\":\"body_budget\"");
        }
    }

    private static String head(int contentLength) {
        return "POST /route/explain?path=/v1/chat/completions HTTP/1.1\r\nHost: admin\r\nAuthorization: Bearer "
                + GatewayHarness.EXPLAIN_TOKEN + "\r\nContent-Length: " + contentLength + "\r\n\r\n";
    }
}

package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.enginesim.EngineSimulator;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Request targets only a raw socket can send (docs/reliability-checklist.md E 67–69), through a provider and a consumer: none
 * reaches the engine, and each is refused with 404 (the gateway's path refusal) or 400 (Helidon's parser).
 */
class RequestTargetsIntegrationTest {
    private static final String CHAT = UpstreamFaultsIntegrationTest.CHAT;

    @TempDir
    Path dir;

    private final EngineSimulator engine = GatewayHarness.engine("east-a");
    private GatewayHarness gateway;

    @AfterEach
    void stop() {
        gateway.close();
        engine.close();
    }

    private RawClient.Answer raw(String requestLine) throws IOException {
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.send(requestLine + "\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: "
                    + CHAT.length() + "\r\n\r\n" + CHAT);
            return client.read();
        }
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "provider | OPTIONS * HTTP/1.1, POST http://gw/pause HTTP/1.1,"
                        + " POST http://gw/v1/chat/completions/../../pause HTTP/1.1,"
                        + " POST /v1/chat/completions/../../pause HTTP/1.1, POST /v1/%2e%2e/pause HTTP/1.1,"
                        + " POST /v1/chat/completions;x HTTP/1.1, POST /V1/chat/completions HTTP/1.1,"
                        + " POST /v1/chat%2Fcompletions HTTP/1.1, GET /v1/responses/resp_east.1ef772aa..abc HTTP/1.1,"
                        + " POST /collective_rpc HTTP/1.1, POST /v1/chat/completions/ HTTP/1.1",
                "consumer | OPTIONS * HTTP/1.1, POST http://gw/pause HTTP/1.1, POST /pause HTTP/1.1,"
                        + " POST /v1/load_lora_adapter HTTP/1.1, GET /metrics HTTP/1.1,"
                        + " POST /v1/responses/../../pause HTTP/1.1, POST /v1/%2e%2e/pause HTTP/1.1,"
                        + " POST /tokenize HTTP/1.1, GET /server_info HTTP/1.1"
            })
    void oddTargets_refused_neverForwarded(String role, String requestLines) throws Exception {
        gateway = new GatewayHarness(
                dir,
                GatewayHarness.config(
                        "  role: " + role + "\n  allowed_paths: [/v1/chat/completions]\n",
                        GatewayHarness.oneScrapedEngine(engine.url())));
        for (String requestLine : requestLines.split(",")) {
            RawClient.Answer answer = raw(requestLine.strip());
            assertThat(answer.status()).as(requestLine).isIn(400, 404);
        }
        assertThat(engine.requestCount()).isZero();
        // The allowed path itself still goes through, so the refusals are the targets', not the gateway's state.
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.post("/v1/chat/completions", CHAT);
            assertThat(client.read().status()).isEqualTo(200);
        }
        assertThat(GatewayHarness.take(engine).target()).isEqualTo("/v1/chat/completions");
    }
}

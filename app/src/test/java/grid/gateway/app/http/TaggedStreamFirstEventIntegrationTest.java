package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A tagged event stream that breaks inside its first event, which the gateway holds to tag it whole: nothing of the
 * answer reached the client, so it gets the gateway's 502 in the API's shape, never a connection closed without a
 * status; and the next client gets its own answer. Found by {@link UpstreamAnswersPathsPropertyTest}.
 */
class TaggedStreamFirstEventIntegrationTest extends ScriptedEngineIntegrationTest {
    private static final String FIRST_EVENT =
            "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_abc\"}}\n\n";

    @ParameterizedTest
    @CsvSource({
        // Where the engine stops: bytes of the first event written, in one chunk or cut inside it, then a reset or a
        // close.
        "20, true, true",
        "20, true, false",
        "20, false, true",
        "20, false, false",
        "1, false, false"
    })
    void brokenInsideTheFirstEvent_502InTheApiShape_nextClientAnswered(int written, boolean wholeChunk, boolean reset)
            throws Exception {
        engine.script = e -> {
            if (!UpstreamAnswersIntegrationTest.who(e).equals("B")) {
                e.write(UpstreamAnswersIntegrationTest.ok(UpstreamAnswersIntegrationTest.body("C")));
                return;
            }
            String part = FIRST_EVENT.substring(0, written);
            e.write(ScriptedUpstream.SSE_HEAD
                    + (wholeChunk
                            ? UpstreamFaultsIntegrationTest.chunk(part)
                            : Integer.toHexString(FIRST_EVENT.length()) + "\r\n" + part));
            if (reset) {
                e.tcp.setSoLinger(true, 0);
                e.tcp.close();
            } else {
                e.finWithoutCloseNotify();
                e.awaitPeerClose(10_000);
            }
        };

        RawClient.Answer b = ask("B");

        assertThat(b.status()).isEqualTo(502);
        assertThat(b.body()).startsWith("{\"error\":").contains("\"code\":\"bad_gateway\"");
        assertThat(b.head()).doesNotContainIgnoringCase("text/event-stream");
        RawClient.Answer c = ask("C");
        assertThat(c.status()).isEqualTo(200);
        assertThat(c.body()).isEqualTo(UpstreamAnswersIntegrationTest.body("C"));
    }

    private RawClient.Answer ask(String who) throws IOException {
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.post("/v1/responses", "{\"model\":\"demo-model\",\"input\":\"who-" + who + "\",\"stream\":true}");
            return client.read();
        }
    }
}

package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.tag.ClusterDigest;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * How the events of a tagged event stream end. One whose blank line's CR is the last byte the engine sent (CR-only
 * framing, or CRLF framing cut between the CR and the LF), then a silence: a client dispatches the event at that CR,
 * so the gateway hands it on tagged then, not once the engine sends its next byte. One that the stream's end cuts
 * off before its blank line: a lenient reader reads it, so its ids are tagged too.
 */
class TaggedStreamEventEndsIntegrationTest extends ScriptedEngineIntegrationTest {
    private static final String TAGGED = "resp_east." + ClusterDigest.of("east-a") + "..abc";

    @ParameterizedTest
    @ValueSource(strings = {"\r", "\r\n"})
    void eventEndsWithItsBlankLinesCr_thenSilence_clientGetsItTaggedDuringTheSilence(String lineEnd) throws Exception {
        String first = "event: response.created" + lineEnd + "data: {\"id\":\"resp_abc\"}" + lineEnd + "\r";
        String rest = (lineEnd.equals("\r") ? "" : "\n") + "data: [DONE]" + lineEnd + lineEnd;
        CountDownLatch clientGotTheEvent = new CountDownLatch(1);
        engine.script = e -> {
            e.write(ScriptedUpstream.SSE_HEAD + UpstreamFaultsIntegrationTest.chunk(first));
            // Silent until the client has the event (at most 30 s: longer than the client waits for it).
            clientGotTheEvent.await(30, TimeUnit.SECONDS);
            e.write(UpstreamFaultsIntegrationTest.chunk(rest) + "0\r\n\r\n");
        };

        try (RawClient client = new RawClient(gateway.server.port())) {
            client.post("/v1/responses", "{\"model\":\"demo-model\",\"input\":\"hi\",\"stream\":true}");
            client.socket.setSoTimeout(10_000);

            String got = client.readUntil(TAGGED + "\"}" + lineEnd + "\r");

            clientGotTheEvent.countDown();
            assertThat(got).contains(first.replace("resp_abc", TAGGED));
            client.socket.setSoTimeout(20_000);
            assertThat(client.readUntil("0\r\n\r\n")).contains("data: [DONE]" + lineEnd + lineEnd);
        }
    }

    @Test
    void streamEndsBeforeTheLastEventsBlankLine_thatEventsIdTagged() throws Exception {
        String last = "event: response.completed\ndata: {\"response\":{\"id\":\"resp_abc\"}}\n";
        engine.script = e -> e.write(ScriptedUpstream.SSE_HEAD + UpstreamFaultsIntegrationTest.chunk("data: {}\n\n")
                + UpstreamFaultsIntegrationTest.chunk(last) + "0\r\n\r\n");

        try (RawClient client = new RawClient(gateway.server.port())) {
            client.post("/v1/responses", "{\"model\":\"demo-model\",\"input\":\"hi\",\"stream\":true}");
            RawClient.Answer answer = client.read();

            assertThat(answer.complete()).isTrue();
            assertThat(answer.body()).isEqualTo("data: {}\n\n" + last.replace("resp_abc", TAGGED));
        }
    }
}

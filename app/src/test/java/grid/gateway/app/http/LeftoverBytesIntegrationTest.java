package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.Socket;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What an earlier exchange leaves on a pooled connection and the engine writes only once the next request went out on
 * it (after the connection was found quiet), on real sockets: bytes that cannot begin a status line, or an answer
 * naming an earlier request. Neither is the next request's answer: that request is sent once more on a new
 * connection and its client gets its own answer, never the leftover and never a 502 for a fault not its own.
 */
class LeftoverBytesIntegrationTest extends ScriptedEngineIntegrationTest {
    /** Each engine connection's requests so far: their names and their {@code X-Request-Id}s. */
    private final Map<Socket, List<String[]>> served = new ConcurrentHashMap<>();

    /** Notes the request {@code e} on its connection; returns the requests that connection carried before it. */
    private List<String[]> before(ScriptedUpstream.Exchange e) {
        List<String[]> all = served.computeIfAbsent(e.socket, s -> new CopyOnWriteArrayList<>());
        List<String[]> earlier = List.copyOf(all);
        all.add(new String[] {UpstreamAnswersIntegrationTest.who(e), header(e, "x-request-id")});
        return earlier;
    }

    private static String header(ScriptedUpstream.Exchange e, String name) {
        return UpstreamAnswersIntegrationTest.header(e.head, name);
    }

    private static String answer(String who, String id) {
        String body = UpstreamAnswersIntegrationTest.body(who);
        return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Request-Id: " + id + "\r\nContent-Length: "
                + body.length() + "\r\n\r\n" + body;
    }

    private RawClient.Answer ask(String who) throws IOException {
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.post("/v1/chat/completions", UpstreamAnswersIntegrationTest.chat(who));
            return client.read();
        }
    }

    private double retries(String reason) {
        return gateway.metric("grid_upstream_retries_total", "reason=\"" + reason + "\"");
    }

    private double retries() {
        return retries("out_of_step") + retries("stale_connection");
    }

    /**
     * The named client got its own answer, from a second sending on a new connection, with nothing counted failed;
     * the retry counted as the engine's being out of step, not as the stale connection a keep-alive timeout makes.
     */
    private void ownAnswerFromANewConnection(RawClient.Answer answer, String who) throws Exception {
        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.body()).isEqualTo(UpstreamAnswersIntegrationTest.body(who));
        assertThat(retries("out_of_step")).isEqualTo(1.0);
        assertThat(retries("stale_connection")).isZero();
        List<ScriptedUpstream.Request> sent = engine.requests();
        ScriptedUpstream.Request stale = sent.get(sent.size() - 2);
        assertThat(sent.getLast().head()).isEqualTo(stale.head());
        assertThat(served).hasSize(2);
        assertThat(gateway.metrics()).doesNotContainPattern("grid_upstream_errors_total\\{[^}]*} [1-9]");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "}", // one byte past the Content-Length
                "\r\n", // a stray CRLF after a body
                "0\r\n\r\n", // a last chunk written late
                "null", // the body of a 204 announcing none, written late
                "data: [DONE]\n\n", // the tail of an event stream
                "\u0000\u00ff garbage without a line end"
            })
    void bytesThatCannotBeginAStatusLine_writtenAfterTheNextRequestWentOut_sentAgainOnANewConnection(String leftover)
            throws Exception {
        engine.script = e -> {
            String who = UpstreamAnswersIntegrationTest.who(e);
            e.write((before(e).isEmpty() ? "" : leftover) + answer(who, header(e, "x-request-id")));
        };
        assertThat(ask("B").body()).isEqualTo(UpstreamAnswersIntegrationTest.body("B"));

        ownAnswerFromANewConnection(ask("C"), "C");
    }

    @Test
    void leftoverThenTheEnginesClose_sentAgainOnANewConnection() throws Exception {
        engine.script = e -> {
            if (before(e).isEmpty()) {
                e.write(answer(UpstreamAnswersIntegrationTest.who(e), header(e, "x-request-id")));
            } else {
                e.write("}");
                e.reset();
            }
        };
        assertThat(ask("B").status()).isEqualTo(200);

        ownAnswerFromANewConnection(ask("C"), "C");
    }

    @Test
    void leftoverWhileTheEngineComputes_toldAtItsFirstByte_connectionClosedBeforeTheAnswerComes() throws Exception {
        // The leftover lands, then nothing for as long as the engine computes the answer: the connection is closed
        // at the leftover (which tells the engine to stop), not once a line end comes with the answer seconds later.
        AtomicBoolean closedFirst = new AtomicBoolean();
        engine.script = e -> {
            String who = UpstreamAnswersIntegrationTest.who(e);
            if (!before(e).isEmpty()) {
                e.write("}");
                closedFirst.set(e.awaitPeerClose(5_000));
            }
            e.write(answer(who, header(e, "x-request-id")));
        };
        assertThat(ask("B").status()).isEqualTo(200);

        ownAnswerFromANewConnection(ask("C"), "C");
        assertThat(closedFirst).as("closed before the answer was written").isTrue();
    }

    @Test
    void bytesThatCannotBeginAStatusLine_onANewConnection_502_sentOnce() throws Exception {
        engine.script = e -> e.write("}" + answer(UpstreamAnswersIntegrationTest.who(e), header(e, "x-request-id")));

        RawClient.Answer b = ask("B");

        assertThat(b.status()).isEqualTo(502);
        assertThat(b.body()).contains("\"code\":\"bad_gateway\"").doesNotContain("who");
        assertThat(engine.requests()).hasSize(1);
        assertThat(retries()).isZero();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 16})
    void answerNamingAnEarlierRequestOnTheConnection_neverRelayed_sentAgainOnANewConnection(int behind)
            throws Exception {
        // An engine that echoes X-Request-Id (vLLM with --enable-request-id-headers) and wrote an answer too many,
        // landing on its connection only after later requests went out on it: the last of them reads the answer
        // owed to the request `behind` before it. Nothing else in HTTP/1.1 tells it from its own.
        engine.script = e -> {
            List<String[]> earlier = before(e);
            String[] answering = earlier.size() == behind
                    ? earlier.get(earlier.size() - behind)
                    : new String[] {UpstreamAnswersIntegrationTest.who(e), header(e, "x-request-id")};
            e.write(answer(answering[0], answering[1]));
        };
        for (int i = 0; i < behind; i++) {
            assertThat(ask("R" + i).body()).isEqualTo(UpstreamAnswersIntegrationTest.body("R" + i));
        }

        ownAnswerFromANewConnection(ask("R" + behind), "R" + behind);
    }

    @Test
    void answerNamingTheRequestsOwnIdSentBefore_relayed() throws Exception {
        // A client that sends one id on two requests: an answer naming it is this request's as far as the gateway
        // can tell, as on a connection that carried nothing before.
        engine.script = e -> {
            before(e);
            e.write(answer(UpstreamAnswersIntegrationTest.who(e), header(e, "x-request-id")));
        };
        for (String who : List.of("B", "C")) {
            try (RawClient client = new RawClient(gateway.server.port())) {
                String chat = UpstreamAnswersIntegrationTest.chat(who);
                client.send("POST /v1/chat/completions HTTP/1.1\r\nHost: gw\r\nX-Request-Id: same-id\r\n"
                        + "Content-Type: application/json\r\nContent-Length: " + chat.length() + "\r\n\r\n" + chat);
                assertThat(client.read().body()).isEqualTo(UpstreamAnswersIntegrationTest.body(who));
            }
        }
        assertThat(served).hasSize(1);
        assertThat(retries()).isZero();
    }
}

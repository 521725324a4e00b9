package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What an engine's answer says about itself, on real sockets (a raw-socket engine, raw clients): a
 * {@code Content-Type} the gateway cannot parse, a stored-id answer labelled as something other than what it is (no
 * label, text, an event stream labelled JSON and the reverse) or not quite JSON, and an answer that breaks after its
 * status went out. Each client gets its own answer, or a 502 in the
 * API's shape, or (once bytes went out) a connection that ends abnormally; never a 500, never an untagged stored id,
 * never a stack trace in the log.
 */
class UpstreamAnswerLabelsIntegrationTest {
    @TempDir
    Path dir;

    private ScriptedUpstream engine;
    private GatewayHarness gateway;
    private final List<LogRecord> traced = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            if (record.getLevel().intValue() >= Level.INFO.intValue() && readingAnEnginesAnswer(record.getThrown())) {
                traced.add(record);
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    /** Classes that read what an engine sent: a stack trace through one of them is the engine's answer's doing. */
    private static final List<String> ANSWER_READERS =
            List.of("AnswerBody", "AnswerReader", "HeadParser", "UpstreamAnswer");

    /**
     * Whether {@code thrown} (or a cause) was thrown while the gateway read an engine's answer. The log handler is the
     * JVM's, so records of other components (a client's connection failing, another test's gateway stopping) are
     * left to the tests of their own class.
     */
    static boolean readingAnEnginesAnswer(Throwable thrown) {
        for (Throwable t = thrown; t != null; t = t.getCause() == t ? null : t.getCause()) {
            for (StackTraceElement frame : t.getStackTrace()) {
                String name = frame.getClassName();
                if (name.startsWith("grid.gateway.app.forward.")
                        && ANSWER_READERS.contains(name.substring("grid.gateway.app.forward.".length()))) {
                    return true;
                }
            }
        }
        return false;
    }

    @BeforeEach
    void start() throws IOException {
        Logger.getLogger("").addHandler(capture);
        engine = new ScriptedUpstream();
        gateway = new GatewayHarness(dir, GatewayHarness.config("""
                          upstream:
                            idle_timeout_ms: 400
                        """, GatewayHarness.oneEngine(engine.url())), engine);
    }

    @AfterEach
    void stop() {
        gateway.close();
        Logger.getLogger("").removeHandler(capture);
    }

    private static String answer(String status, String headers, String body) {
        return "HTTP/1.1 " + status + "\r\n" + headers + "Content-Length: "
                + body.getBytes(StandardCharsets.ISO_8859_1).length + "\r\n\r\n" + body;
    }

    private RawClient.Answer post(String path, String body) throws IOException {
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.post(path, body);
            return client.read();
        }
    }

    private RawClient.Answer chat(String who) throws IOException {
        return post("/v1/chat/completions", UpstreamAnswersIntegrationTest.chat(who));
    }

    private RawClient.Answer responses() throws IOException {
        return post("/v1/responses", "{\"model\":\"demo-model\",\"input\":\"hi\"}");
    }

    /** After the variant, a plain answer on the same gateway: it reaches its client exactly. */
    private void nextClientGetsItsOwn() throws IOException {
        engine.script = e -> e.write(UpstreamAnswersIntegrationTest.ok(
                UpstreamAnswersIntegrationTest.body(UpstreamAnswersIntegrationTest.who(e))));
        RawClient.Answer c = chat("C");
        assertThat(c.status()).isEqualTo(200);
        assertThat(c.body()).isEqualTo(UpstreamAnswersIntegrationTest.body("C"));
        assertThat(traced)
                .as("stack traces logged while reading an engine's answer")
                .extracting(r -> r.getLevel() + " " + r.getLoggerName() + ": " + r.getMessage() + " / " + r.getThrown())
                .isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"json", "application/json; charset", "", "text/", "application/json;;", "/"})
    void contentTypeHelidonCannotParse_relayedAsSent_never500(String type) throws Exception {
        String body = UpstreamAnswersIntegrationTest.body("B");
        engine.script = e -> e.write(answer("200 OK", "Content-Type: " + type + "\r\n", body));

        RawClient.Answer b = chat("B");

        assertThat(b.status()).isEqualTo(200);
        assertThat(b.body()).isEqualTo(body);
        assertThat(b.header("content-type")).isEqualTo(type);
        nextClientGetsItsOwn();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "Content-Type: text/plain\r\n",
                "Content-Type: application/problem+json\r\n",
                "Content-Type: application/x-ndjson\r\n",
                "Content-Type: json\r\n",
                "Content-Type: text/plain\r\nContent-Type: application/json\r\n",
                "Content-Type: application/octet-stream\r\n"
            })
    void storedIdAnswerOfAnyContentType_idTagged(String typeLines) throws Exception {
        engine.script = e -> e.write(answer("200 OK", typeLines, "{\"id\":\"resp_abc\",\"object\":\"response\"}"));

        RawClient.Answer answer = responses();

        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.body())
                .isEqualTo("{\"id\":\"resp_east.1ef772aa..abc\",\"object\":\"response\"}")
                .doesNotContain("\"resp_abc\"");
        nextClientGetsItsOwn();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{\"id\":\"resp_abc\",\"object\":\"response\"}x",
                "{\"id\":\"resp_abc\",\"object\":\"response\",\"output\"",
                "{\"id\":\"resp_abc\",\"object\":\"response\",\"t\":\"\u00ff\"}",
                "{\"id\":\"resp_abc\",\"t\":\"\u0001\"}"
            })
    void storedIdAnswerThatStopsBeingJson_idsBeforeTheFlawTagged(String body) throws Exception {
        engine.script = e -> e.write(answer("200 OK", "Content-Type: application/json\r\n", body));

        RawClient.Answer answer = responses();

        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.body())
                .startsWith("{\"id\":\"resp_east.1ef772aa..abc\"")
                .doesNotContain("\"resp_abc\"");
    }

    @Test
    void storedIdEventStreamLabelledJson_eachEventTagged() throws Exception {
        String event = "data: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_s1\"}}\n\n";
        engine.script =
                e -> e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + UpstreamAnswersIntegrationTest.chunk(event) + UpstreamAnswersIntegrationTest.chunk(event)
                        + "0\r\n\r\n");

        RawClient.Answer answer = responses();

        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.body())
                .isEqualTo(event.replace("resp_s1", "resp_east.1ef772aa..s1").repeat(2));
        nextClientGetsItsOwn();
    }

    @Test
    void storedIdJsonLabelledAsAnEventStream_tagged() throws Exception {
        engine.script = e -> e.write(answer(
                "200 OK", "Content-Type: text/event-stream\r\n", "{\"id\":\"resp_abc\",\"object\":\"response\"}"));

        RawClient.Answer answer = responses();

        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.body()).isEqualTo("{\"id\":\"resp_east.1ef772aa..abc\",\"object\":\"response\"}");
        nextClientGetsItsOwn();
    }

    @ParameterizedTest
    @ValueSource(strings = {"\n", " \r\n\t"})
    void storedIdJsonLabelledAsAnEventStream_whiteSpaceFirst_tagged(String space) throws Exception {
        // The first byte other than white space says what the body is, not the label.
        String body = space + "{\"id\":\"resp_abc\",\"object\":\"response\"}";
        engine.script = e -> e.write(answer("200 OK", "Content-Type: text/event-stream\r\n", body));

        RawClient.Answer answer = responses();

        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.body()).isEqualTo(body.replace("resp_abc", "resp_east.1ef772aa..abc"));
        nextClientGetsItsOwn();
    }

    @ParameterizedTest
    @ValueSource(strings = {"\n", "\r\n", " \n"})
    void storedIdEventStreamLabelledJson_whiteSpaceFirst_eachEventTagged(String space) throws Exception {
        String event = "data: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_s1\"}}\n\n";
        engine.script =
                e -> e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + UpstreamAnswersIntegrationTest.chunk(space + event)
                        + UpstreamAnswersIntegrationTest.chunk(event) + "0\r\n\r\n");

        RawClient.Answer answer = responses();

        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.body())
                .isEqualTo(space
                        + event.replace("resp_s1", "resp_east.1ef772aa..s1").repeat(2));
        nextClientGetsItsOwn();
    }

    @Test
    void compressedStoredIdAnswerLabelledText_502_neverRelayedUntagged() throws Exception {
        engine.script = e -> {
            e.write(answer("200 OK", "Content-Type: text/plain\r\nContent-Encoding: gzip\r\n", "{\"id\":\"resp_1\"}"));
            e.awaitPeerClose(10_000);
        };

        RawClient.Answer answer = responses();

        assertThat(answer.status()).isEqualTo(502);
        assertThat(answer.body())
                .startsWith("{\"error\":")
                .contains("bad_gateway")
                .doesNotContain("resp_1");
        nextClientGetsItsOwn();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                // A Content-Length body cut short by a close, then by a reset.
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{\"who\":\"B\"}!close",
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{\"who\":\"B\"}!reset",
                // Chunk data not followed by its CRLF; trailers over 16 KiB; a folded trailer line.
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + "b\r\n{\"who\":\"B\"}0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + "b\r\n{\"who\":\"B\"}\r\n0\r\n!trailers\r\n",
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + "b\r\n{\"who\":\"B\"}\r\n0\r\nX-T: 1\r\n folded\r\n\r\n",
                // An event stream that ends without its last chunk; one that goes silent past the idle timeout.
                ScriptedUpstream.SSE_HEAD + "a\r\ndata: {}\n\n\r\n!close",
                ScriptedUpstream.SSE_HEAD + "a\r\ndata: {}\n\n\r\n!silent"
            })
    void answerBrokenAfterItsStatusWentOut_clientConnectionEndsAbnormally_noStackTrace(String script) throws Exception {
        // The script's end: !close closes the connection, !reset resets it, !silent says nothing more; !trailers
        // stands for 24 KiB of trailer fields.
        String raw = script.replaceAll("!(close|reset|silent)$", "").replace("!trailers", "X-T: 1\r\n".repeat(3000));
        engine.script = e -> {
            e.write(raw);
            if (script.endsWith("!close")) {
                e.socket.close();
            } else if (script.endsWith("!reset")) {
                e.reset();
            } else {
                e.awaitPeerClose(10_000);
            }
        };

        RawClient.Answer b = chat("B");

        assertThat(b.status()).isEqualTo(200);
        assertThat(b.complete()).as("the client's answer ends abnormally").isFalse();
        nextClientGetsItsOwn();
    }
}

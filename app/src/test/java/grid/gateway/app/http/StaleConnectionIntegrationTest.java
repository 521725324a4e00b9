package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.routing.tag.ClusterDigest;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A pooled connection the engine has given up on (its keep-alive timeout, a reset after an answer), on real sockets: the request that meets it before any byte of its answer is sent once more on a new
 * connection, whatever its method and path, and counted; a failure after the answer began, a silence, or a failure
 * on a new connection is answered as before, never sent twice.
 */
class StaleConnectionIntegrationTest {
    private static final String TAGGED = "resp_east." + ClusterDigest.of("east-a") + "..abc";

    @TempDir
    Path dir;

    private ScriptedUpstream engine;
    private GatewayHarness gateway;
    /** Requests each engine connection has received. */
    private final Map<Socket, AtomicInteger> served = new ConcurrentHashMap<>();

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
    }

    private void start(String upstream) {
        engine = new ScriptedUpstream();
        gateway = new GatewayHarness(
                dir, GatewayHarness.config(upstream, GatewayHarness.oneEngine(engine.url())), engine);
    }

    /** How many requests the connection of {@code e} had carried before this one. */
    private int before(ScriptedUpstream.Exchange e) {
        return served.computeIfAbsent(e.socket, s -> new AtomicInteger()).getAndIncrement();
    }

    private static String badRequest() {
        String body = "{\"object\":\"error\",\"message\":\"too long\",\"type\":\"BadRequestError\",\"code\":400}";
        return "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: " + body.length()
                + "\r\n\r\n" + body;
    }

    private RawClient.Answer send(String method, String path, String who) throws IOException {
        try (RawClient client = new RawClient(gateway.server.port())) {
            if (method.equals("POST")) {
                client.post(path, UpstreamAnswersIntegrationTest.chat(who));
            } else {
                client.send(method + " " + path + " HTTP/1.1\r\nHost: gw\r\n\r\n");
            }
            return client.read();
        }
    }

    private double retries() {
        return gateway.metric("grid_upstream_retries_total", "reason=\"stale_connection\"");
    }

    static Stream<Arguments> methodsAndPaths() {
        return Stream.of(
                Arguments.of("POST", "/v1/chat/completions"),
                Arguments.of("GET", "/v1/responses/" + TAGGED),
                Arguments.of("DELETE", "/v1/responses/" + TAGGED));
    }

    @ParameterizedTest
    @MethodSource("methodsAndPaths")
    void answerThenReset_nextRequestSentAgainOnANewConnection_200_counted(String method, String path) throws Exception {
        start("");
        // The first request on each connection is answered; whatever comes next on that connection meets a reset,
        // before any byte of an answer.
        engine.script = e -> {
            if (before(e) > 0) {
                e.reset();
            } else if (UpstreamAnswersIntegrationTest.who(e).equals("A")) {
                e.write(UpstreamAnswersIntegrationTest.ok(UpstreamAnswersIntegrationTest.body("A")));
            } else {
                e.write(UpstreamAnswersIntegrationTest.ok(UpstreamAnswersIntegrationTest.body("fresh")));
            }
        };
        assertThat(send("POST", "/v1/chat/completions", "A").status()).isEqualTo(200);

        RawClient.Answer next = send(method, path, "B");

        assertThat(next.status()).isEqualTo(200);
        assertThat(next.body()).isEqualTo(UpstreamAnswersIntegrationTest.body("fresh"));
        Resent resent = sentAgainOnANewConnection();
        assertThat(resent.again().head).isEqualTo(resent.stale().head);
        assertThat(resent.again().body).isEqualTo(resent.stale().body);
        assertThat(gateway.metrics()).doesNotContainPattern("grid_upstream_errors_total\\{[^}]*} [1-9]");
    }

    @Test
    void validationErrorToARequestWithABody_connectionClosedByTheGateway_resetNeverMet_notRetried() throws Exception {
        start("");
        // vLLM answers a prompt too long for its context with 400 and resets the connection under the next request:
        // the gateway closes a connection whose request had a body and whose answer is no 2xx, so the next request
        // goes out on a new one and meets no reset.
        engine.script = e -> {
            if (before(e) > 0) {
                e.reset();
            } else if (UpstreamAnswersIntegrationTest.who(e).equals("A")) {
                e.write(badRequest());
            } else {
                e.write(UpstreamAnswersIntegrationTest.ok(UpstreamAnswersIntegrationTest.body("fresh")));
            }
        };
        assertThat(send("POST", "/v1/chat/completions", "A").status()).isEqualTo(400);

        assertThat(send("POST", "/v1/chat/completions", "B").body())
                .isEqualTo(UpstreamAnswersIntegrationTest.body("fresh"));
        assertThat(engine.take().socket).isNotSameAs(engine.take().socket);
        assertThat(engine.requests()).hasSize(2);
        assertThat(retries()).isZero();
    }

    @Test
    void answerThenImmediateReset_nextRequestGets200() throws Exception {
        start("");
        // vLLM's own timing: the reset follows the 400 at once, before any next request.
        engine.script = e -> {
            if (UpstreamAnswersIntegrationTest.who(e).equals("A")) {
                e.write(badRequest());
                e.reset();
            } else {
                e.write(UpstreamAnswersIntegrationTest.ok(UpstreamAnswersIntegrationTest.body("B")));
            }
        };
        assertThat(send("POST", "/v1/chat/completions", "A").status()).isEqualTo(400);

        for (int i = 0; i < 3; i++) {
            assertThat(send("POST", "/v1/chat/completions", "B").status()).isEqualTo(200);
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
                "HTTP/1.1 408 Request Timeout\r\nContent-Type: text/html\r\nContent-Length: 5\r\n\r\nidle!"
            })
    void timeoutAnswerOnAReusedConnection_neverTheClients_sentAgainOnANewConnection(String timeout) throws Exception {
        start("");
        // The engine's keep-alive timeout, as the next request goes out on the pooled connection: a 408 (with or
        // without Connection: close), then the close.
        engine.script = e -> {
            if (before(e) > 0) {
                e.write(timeout);
                e.socket.close();
            } else {
                e.write(UpstreamAnswersIntegrationTest.ok(
                        UpstreamAnswersIntegrationTest.body(UpstreamAnswersIntegrationTest.who(e))));
            }
        };
        assertThat(send("POST", "/v1/chat/completions", "A").status()).isEqualTo(200);

        RawClient.Answer next = send("POST", "/v1/chat/completions", "B");

        assertThat(next.status()).isEqualTo(200);
        assertThat(next.body()).isEqualTo(UpstreamAnswersIntegrationTest.body("B"));
        sentAgainOnANewConnection();
    }

    @Test
    void timeoutAnswerOnANewConnection_relayed() throws Exception {
        start("");
        engine.script = e -> e.write("HTTP/1.1 408 Request Timeout\r\nContent-Length: 5\r\n\r\nslow!");

        RawClient.Answer answer = send("POST", "/v1/chat/completions", "A");

        assertThat(answer.status()).isEqualTo(408);
        assertThat(answer.body()).isEqualTo("slow!");
        assertThat(engine.requests()).hasSize(1);
        assertThat(retries()).isZero();
    }

    @Test
    void failureAfterTheFirstAnswerByte_notSentAgain_502() throws Exception {
        start("");
        engine.script = e -> {
            if (before(e) > 0) {
                e.write("HTTP/1.1 2");
                e.reset();
            } else {
                e.write(UpstreamAnswersIntegrationTest.ok(UpstreamAnswersIntegrationTest.body("A")));
            }
        };
        assertThat(send("POST", "/v1/chat/completions", "A").status()).isEqualTo(200);

        RawClient.Answer next = send("POST", "/v1/chat/completions", "B");

        assertThat(next.status()).isEqualTo(502);
        assertThat(next.body()).contains("bad_gateway");
        engine.take();
        engine.take();
        assertThat(engine.exchanges).isEmpty();
        assertThat(retries()).isZero();
    }

    @Test
    void failureOnANewConnection_notSentAgain_502() throws Exception {
        start("");
        engine.script = ScriptedUpstream.Exchange::reset;

        RawClient.Answer answer = send("POST", "/v1/chat/completions", "A");

        assertThat(answer.status()).isEqualTo(502);
        engine.take();
        assertThat(engine.exchanges).isEmpty();
        assertThat(engine.requests()).hasSize(1);
        assertThat(retries()).isZero();
    }

    @Test
    void silenceOnAReusedConnection_504_notSentAgain() throws Exception {
        start("""
                  upstream:
                    first_byte_timeout_ms: 300
                """);
        engine.script = e -> {
            if (before(e) > 0) {
                e.awaitPeerClose(10_000);
            } else {
                e.write(UpstreamAnswersIntegrationTest.ok(UpstreamAnswersIntegrationTest.body("A")));
            }
        };
        assertThat(send("POST", "/v1/chat/completions", "A").status()).isEqualTo(200);

        assertThat(send("POST", "/v1/chat/completions", "B").status()).isEqualTo(504);
        assertThat(engine.requests()).hasSize(2);
        assertThat(retries()).isZero();
    }

    @Test
    void staleAgainOnTheNewConnection_502_sentTwiceOnly() throws Exception {
        start("");
        // Every connection answers its first request and resets at its second: the retry's new connection is a
        // first request, so it answers; reset the new connection too and the gateway gives up with 502.
        AtomicInteger connectionsAfterA = new AtomicInteger();
        engine.script = e -> {
            if (UpstreamAnswersIntegrationTest.who(e).equals("A")) {
                e.write(UpstreamAnswersIntegrationTest.ok(UpstreamAnswersIntegrationTest.body("A")));
            } else {
                connectionsAfterA.incrementAndGet();
                e.reset();
            }
        };
        send("POST", "/v1/chat/completions", "A");

        assertThat(send("POST", "/v1/chat/completions", "B").status()).isEqualTo(502);
        assertThat(connectionsAfterA).hasValue(2);
        assertThat(retries()).isEqualTo(1.0);
    }

    @Test
    void staleRetryWhoseNewConnectionIsRefused_connectFailure_nextCandidateAnswers() throws Exception {
        ScriptedUpstream a = new ScriptedUpstream();
        ScriptedUpstream b = new ScriptedUpstream();
        gateway = new GatewayHarness(dir, GatewayHarness.config("", GatewayHarness.oneSite(a.url(), b.url())), a, b);
        // The first engine to meet a second request on one of its connections has read it, stops listening and
        // resets that connection: the gateway's resend to it finds its connect refused. Every other request is
        // answered, the other cluster's pooled connection included.
        AtomicReference<ScriptedUpstream> gone = new AtomicReference<>();
        for (ScriptedUpstream engine : List.of(a, b)) {
            engine.script = e -> {
                if (before(e) > 0 && gone.compareAndSet(null, engine)) {
                    engine.close();
                    e.reset();
                } else {
                    String who = UpstreamAnswersIntegrationTest.who(e);
                    e.write(UpstreamAnswersIntegrationTest.ok(UpstreamAnswersIntegrationTest.body(who)));
                }
            };
        }

        // Two clusters keep each connection after its answer: by the third request one goes out on a pooled one.
        for (int n = 0; n < 3 && gone.get() == null; n++) {
            RawClient.Answer answer = send("POST", "/v1/chat/completions", "R" + n);
            assertThat(answer.status()).as("request %d", n).isEqualTo(200);
            assertThat(answer.body()).isEqualTo(UpstreamAnswersIntegrationTest.body("R" + n));
        }

        assertThat(gone.get()).as("a request met a pooled connection").isNotNull();
        assertThat(retries()).isEqualTo(1.0);
        assertThat(gateway.metric("grid_upstream_errors_total", "kind=\"connect\""))
                .isEqualTo(1.0);
    }

    /** The request sent on the pooled connection, and the same request sent once more. */
    private record Resent(ScriptedUpstream.Exchange stale, ScriptedUpstream.Exchange again) {}

    /**
     * Asserts that the second request went out on the first one's pooled connection, failed there, and went out once
     * more on a new connection (one retry counted).
     */
    private Resent sentAgainOnANewConnection() throws Exception {
        assertThat(retries()).isEqualTo(1.0);
        ScriptedUpstream.Exchange first = engine.take();
        ScriptedUpstream.Exchange stale = engine.take();
        ScriptedUpstream.Exchange again = engine.take();
        assertThat(stale.socket).as("the pooled connection").isSameAs(first.socket);
        assertThat(again.socket).as("a new connection").isNotSameAs(stale.socket);
        return new Resent(stale, again);
    }
}

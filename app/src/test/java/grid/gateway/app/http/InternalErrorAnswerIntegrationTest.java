package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.CapturedLog;
import grid.gateway.routing.time.ManualClock;
import io.helidon.http.DirectHandler;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.DirectHandlers;
import io.helidon.webserver.http1.Http1Config;
import io.helidon.webserver.http1.Http1ConnectionSelector;
import java.time.Duration;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Helidon 4.5 hands {@link ParseRefusal} every internal error it meets on a connection (event {@code INTERNAL_ERROR},
 * no cause): a request line its parser fails on with an exception of its own (a method that is not a token), and a
 * handler that threw, a failure of the gateway's own. The first is the client's malformed request (400, counted, not
 * logged); the second must not pass for one: 500 in the API's shape and a WARNING an operator sees, rate-limited. A
 * listener wired as the gateway wires its listeners ({@link RequestLineKeeper}, its receive listener, the refusals as
 * direct handlers), with one route that throws.
 */
class InternalErrorAnswerIntegrationTest {
    private final ManualClock clock = new ManualClock();
    private WebServer server;
    private CapturedLog log;

    @BeforeEach
    void start() {
        log = CapturedLog.of(ParseRefusal.class);
        DirectHandler refusal = ParseRefusal.onAdmin(clock);
        HeaderDeadline deadline = new HeaderDeadline(System::nanoTime, Duration.ofSeconds(10), () -> {});
        server = WebServer.builder()
                .host("127.0.0.1")
                .port(0)
                .protocolsDiscoverServices(false)
                .addConnectionSelector(new RequestLineKeeper(
                        Http1ConnectionSelector.builder()
                                .config(Http1Config.builder()
                                        .addReceiveListener(RequestLineKeeper.adminReceiveListener(deadline))
                                        .build())
                                .build(),
                        () -> 4096))
                .directHandlers(DirectHandlers.builder()
                        .addHandler(DirectHandler.EventType.BAD_REQUEST, refusal)
                        .addHandler(DirectHandler.EventType.OTHER, refusal)
                        .addHandler(DirectHandler.EventType.INTERNAL_ERROR, refusal)
                        .build())
                .routing(r -> r.error(Throwable.class, HandlerFailure::remember)
                        .get("/broken", (req, res) -> {
                            throw new IllegalStateException("a defect of the gateway's own");
                        })
                        .get("/fine", (req, res) -> res.send("fine")))
                .build()
                .start();
    }

    @AfterEach
    void stop() {
        server.stop();
        log.close();
    }

    @Test
    void aHandlerThatThrows_500InTheApisShape_connectionClose_oneWarningNamingTheRequest() {
        RawHttp.Reply reply;
        try (RawHttp client = new RawHttp(server.port())) {
            reply = client.send("GET /broken HTTP/1.1\r\nHost: gw\r\n\r\n").readResponses(1);
        }
        assertThat(reply.status()).as(reply.text()).isEqualTo(500);
        assertThat(reply.body()).startsWith("{\"error\":{").contains("\"code\":\"internal_error\"");
        // The routing's path to the handler keeps the connection; the answer tells the client to close it.
        assertThat(reply.text()).containsIgnoringCase("\r\nconnection: close\r\n");
        assertThat(log.records())
                .singleElement()
                .satisfies(r -> assertThat(r.getLevel()).isEqualTo(Level.WARNING))
                .satisfies(r -> assertThat(r.getMessage()).contains("GET /broken"))
                .satisfies(r -> assertThat(r.getThrown()).hasMessage("a defect of the gateway's own"));
    }

    @Test
    void aMethodThatIsNotAToken_stillTheClients400_notLogged_andAWholeRequestBeforeItChangesNothing() {
        try (RawHttp client = new RawHttp(server.port())) {
            // A whole request first: its lines are accounted for, the next request line is not.
            RawHttp.Reply reply = client.send(
                            "GET /fine HTTP/1.1\r\nHost: gw\r\n\r\nGE(T /fine HTTP/1.1\r\nHost: gw\r\n\r\n")
                    .readResponses(2);
            assertThat(reply.text()).startsWith("HTTP/1.1 200 ").contains("HTTP/1.1 400 ");
            assertThat(reply.text()).contains("\"code\":\"invalid_request\"");
        }
        assertThat(log.records()).isEmpty();
    }

    @Test
    void warnings_atMostOneEveryTenSeconds_eachSayingHowManyWereNotLogged() {
        ManualClock now = new ManualClock(5);
        ParseRefusal.Warnings warnings = new ParseRefusal.Warnings("client", now);
        warnings.warn("GET /a", null);
        now.advance(Duration.ofNanos(ParseRefusal.WARNING_EVERY_NANOS - 1));
        warnings.warn("GET /b", null);
        warnings.warn("GET /c", null);
        now.advance(Duration.ofNanos(1));
        warnings.warn("GET /d", null);
        assertThat(log.messages()).hasSize(2);
        assertThat(log.records().get(0).getMessage()).contains("GET /a").contains("0 more not logged");
        assertThat(log.records().get(1).getMessage()).contains("GET /d").contains("2 more not logged");
    }

    /** Each request on a connection of its own: the 500 tells the client to close. */
    private int broken(String path) {
        try (RawHttp client = new RawHttp(server.port())) {
            return client.send("GET " + path + " HTTP/1.1\r\nHost: gw\r\n\r\n")
                    .readResponses(1)
                    .status();
        }
    }

    @Test
    void theListenersWarnings_rateLimitedOnTheInjectedClock_notTheSystemOne() {
        assertThat(broken("/broken?first")).isEqualTo(500);
        assertThat(broken("/broken?second")).isEqualTo(500);
        assertThat(log.messages()).as("the second within 10 s on the clock").hasSize(1);

        clock.advance(Duration.ofNanos(ParseRefusal.WARNING_EVERY_NANOS - 1));
        assertThat(broken("/broken?third")).isEqualTo(500);
        assertThat(log.messages()).as("a nanosecond short of 10 s on the clock").hasSize(1);

        clock.advance(Duration.ofNanos(1));
        assertThat(broken("/broken?fourth")).isEqualTo(500);
        assertThat(log.records()).hasSize(2);
        assertThat(log.records().get(1).getMessage()).contains("GET /broken").contains("2 more not logged");
    }
}

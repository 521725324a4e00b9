package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.time.ManualClock;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http1.Http1Config;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link BoundedBody} on a real Helidon connection, set up as the gateway's client listener sets it up (an NIO
 * listener, the header deadline as its receive listener): a body that has not arrived whole is read on the handler's
 * own thread under an alarm, and the alarm going off ends the blocked read with the output still open for a 408.
 * The alarm is the test's: it goes off when the test says, so nothing here waits for a deadline. Fails if
 * {@link BodyDeadline} cannot reach the socket of the Helidon in use (the alarm would never be armed).
 */
class BodyDeadlineIntegrationTest {
    private static final int BODY = 40_000;

    /** The test's alarm: armed by the handler, set off by the test. */
    private static final class TestAlarm implements BodyDeadline.Alarm {
        final CountDownLatch armed = new CountDownLatch(1);
        final AtomicReference<Runnable> action = new AtomicReference<>();
        final AtomicInteger cancelled = new AtomicInteger();

        @Override
        public Runnable arm(Duration delay, Runnable onDeadline) {
            action.set(onDeadline);
            armed.countDown();
            return cancelled::incrementAndGet;
        }
    }

    private final TestAlarm alarm = new TestAlarm();
    private WebServer server;

    @BeforeEach
    void start() {
        HeaderDeadline headers = new HeaderDeadline(new ManualClock(), Duration.ofSeconds(10), () -> {});
        server = WebServer.builder()
                .host("127.0.0.1")
                .port(0)
                .protocolsDiscoverServices(false)
                .addProtocol(Http1Config.builder().addReceiveListener(headers).build())
                .featuresDiscoverServices(false)
                .shutdownHook(false)
                .routing(r -> r.post("/", (request, response) -> {
                    BoundedBody.Outcome outcome = BoundedBody.read(
                            request,
                            1 << 20,
                            Duration.ofSeconds(30),
                            new BodyBudget(() -> Long.MAX_VALUE).hold(),
                            alarm);
                    if (outcome instanceof BoundedBody.Outcome.Read read) {
                        response.send("read " + read.bytes().length + " " + Arrays.hashCode(read.bytes()));
                    } else {
                        response.status(Status.REQUEST_TIMEOUT_408)
                                .header(HeaderValues.CONNECTION_CLOSE)
                                .send(outcome.getClass().getSimpleName());
                    }
                }))
                .build()
                .start();
    }

    @AfterEach
    void stop() {
        server.stop();
    }

    private static byte[] body() {
        byte[] body = new byte[BODY];
        for (int i = 0; i < BODY; i++) {
            body[i] = (byte) ('a' + i % 26);
        }
        return body;
    }

    private RawHttp sendHeadAndFirstPart(byte[] body) {
        RawHttp client = new RawHttp(server.port());
        client.send("POST / HTTP/1.1\r\nHost: gw\r\nContent-Length: " + BODY + "\r\n\r\n");
        client.send(Arrays.copyOf(body, 10_000));
        return client;
    }

    @Test
    void bodyInTwoWrites_readOnTheHandlersThreadUnderTheAlarm_alarmCancelled() throws Exception {
        byte[] body = body();
        try (RawHttp client = sendHeadAndFirstPart(body)) {
            // The rest goes only once the handler has armed the alarm: its body had not arrived whole.
            assertThat(alarm.armed.await(10, TimeUnit.SECONDS)).isTrue();
            client.send(Arrays.copyOfRange(body, 10_000, BODY));

            RawHttp.Reply reply = client.readResponses(1);

            assertThat(reply.status()).isEqualTo(200);
            assertThat(reply.body()).isEqualTo("read " + BODY + " " + Arrays.hashCode(body));
            assertThat(alarm.cancelled).hasValue(1);
            // The connection is still good for the next request.
            client.send("POST / HTTP/1.1\r\nHost: gw\r\nContent-Length: 3\r\n\r\nabc");
            RawHttp.Reply next = client.readResponses(1);
            assertThat(next.status()).isEqualTo(200);
            assertThat(next.body()).isEqualTo("read 3 " + Arrays.hashCode("abc".getBytes(StandardCharsets.US_ASCII)));
        }
    }

    @Test
    void bodyStalled_alarmGoesOff_blockedReadEndsAnd408ReachesTheClient() throws Exception {
        try (RawHttp client = sendHeadAndFirstPart(body())) {
            assertThat(alarm.armed.await(10, TimeUnit.SECONDS)).isTrue();

            alarm.action.get().run(); // the deadline, as the scheduler would run it while the read waits

            RawHttp.Reply reply = client.readResponses(1);
            assertThat(reply.status()).isEqualTo(408);
            assertThat(reply.body()).isEqualTo("TimedOut");
            assertThat(alarm.cancelled).hasValue(0);
            assertThat(client.closedWithin(10_000)).isTrue();
        }
    }
}

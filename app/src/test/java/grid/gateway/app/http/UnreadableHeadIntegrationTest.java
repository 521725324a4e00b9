package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Heads Helidon 4.5's HTTP/1 parser fails on with an exception of its own instead of refusing them, which reached its
 * catch-all as an internal error (500, empty body, a WARNING with a stack trace): the client's stream ending inside the
 * request's fields (a FIN; inside the request line Helidon closes quietly itself), and a method that is not a token.
 * The first is closed without an answer, the second answered 400 in the API's shape and closed; neither logs a stack
 * trace nor reaches the engine.
 */
class UnreadableHeadIntegrationTest {
    @RegisterExtension
    static final BehindOneGateway GRID = new BehindOneGateway();

    private static final String CHAT = "{\"model\":\"demo-model\",\"messages\":[]}";
    private static final String WHOLE =
            "POST /v1/chat/completions HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\n" + "Content-Length: "
                    + CHAT.length() + "\r\n\r\n" + CHAT;

    private final List<LogRecord> logged = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            // Helidon's connection logs what reached its catch-all (other tests' gateways log in this JVM too).
            if (record.getLoggerName() != null
                    && record.getLoggerName().startsWith("io.helidon.webserver")
                    && record.getLevel().intValue() >= Level.WARNING.intValue()) {
                logged.add(record);
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    @BeforeEach
    void hook() {
        Logger.getLogger("").addHandler(capture);
    }

    @AfterEach
    void noWarningNoStackTrace() {
        Logger.getLogger("").removeHandler(capture);
        assertThat(logged)
                .extracting(r -> r.getLevel() + " " + r.getLoggerName() + ": " + r.getMessage() + " / " + r.getThrown())
                .isEmpty();
    }

    static Stream<Arguments> cuts() {
        return Stream.of(
                Arguments.of("inside the request line", "POST /v1/chat/comp"),
                Arguments.of("after the request line", "POST /v1/chat/completions HTTP/1.1\r\n"),
                Arguments.of("inside a field", "POST /v1/chat/completions HTTP/1.1\r\nHost: gw\r\nX-Tr"),
                Arguments.of("before the blank line", "GET /v1/responses/resp_x HTTP/1.1\r\nHost: gw\r\n"),
                Arguments.of("inside the blank line", "GET /v1/messages HTTP/1.1\r\nHost: gw\r\n\r"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cuts")
    void clientEndsInsideAHead_closedWithoutAnAnswer_nothingForwarded(String name, String part) throws IOException {
        assertThat(endAfter(part)).as(name).isEmpty();
        assertThat(GRID.engine.connections()).isEqualTo(GRID.connectionsBefore);
    }

    @ParameterizedTest(name = "{0}, after a whole request")
    @MethodSource("cuts")
    void clientEndsInsideASecondHead_firstAnswered_thenClosedWithoutAnAnswer(String name, String part)
            throws IOException {
        String read = endAfter(WHOLE + part);
        assertThat(read).as(name).startsWith("HTTP/1.1 200 ").endsWith("\r\n\r\n{}");
        assertThat(GRID.forwarded()).hasSize(1);
    }

    static Stream<Arguments> methodsNotTokens() {
        return Stream.of(
                Arguments.of("HTTP/1.1 200 OK", "OPENAI"),
                Arguments.of("GE(T /v1/chat/completions HTTP/1.1", "OPENAI"),
                Arguments.of("POST/ /v1/chat/completions HTTP/1.1", "OPENAI"),
                // A request line Helidon cannot parse names no target it could classify: OpenAI's shape.
                Arguments.of("P@ST /v1/messages HTTP/1.1", "OPENAI"),
                Arguments.of("{\"a\":1} /v1/responses HTTP/1.1", "OPENAI"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("methodsNotTokens")
    void methodNotAToken_400InTheApisShape_closed_nothingForwarded(String line, String shape) {
        RawHttp.Reply reply;
        boolean closed;
        try (RawHttp client = new RawHttp(GRID.gateway.server.port())) {
            reply = client.send(line + "\r\nHost: gw\r\nContent-Length: 2\r\n\r\n{}")
                    .readResponses(1);
            closed = reply.closed() || client.closedWithin(5_000);
        }
        assertThat(reply.status()).as(reply.text()).isEqualTo(400);
        assertThat(reply.body())
                .startsWith(shape.equals("ANTHROPIC") ? "{\"type\":\"error\",\"error\":{" : "{\"error\":{\"message\":")
                .contains("invalid_request");
        assertThat(closed).isTrue();
        assertThat(GRID.engine.connections()).isEqualTo(GRID.connectionsBefore);
        assertThat(GRID.gateway.metric("grid_requests_refused_total", "reason=\"malformed_request\""))
                .isPositive();
    }

    /** Sends {@code bytes}, ends the sending side, and reads until the gateway closes. */
    private static String endAfter(String bytes) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", GRID.gateway.server.port())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(bytes.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            socket.shutdownOutput();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }
}

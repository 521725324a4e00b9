package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link RawHttp#read(int)} ends on silence only after a whole answer that keeps the connection: a pause inside an
 * answer, or before the close an answer announced, is longer than the quiet on a loaded machine now and then, and
 * must not cut the reply short.
 */
class RawHttpTest {
    private static final int QUIET_MILLIS = 50;
    /** A server's pause, far longer than the quiet: what a descheduled thread costs on a loaded machine. */
    private static final int PAUSE_MILLIS = 600;

    private static final String BODY = "{\"error\":{\"code\":\"x\"}}";
    private static final String HEAD = "HTTP/1.1 400 Bad Request\r\nContent-Length: " + BODY.length() + "\r\n";

    @Test
    void pauseInsideAContentLengthBody_theWholeAnswerIsRead() throws Exception {
        RawHttp.Reply reply = readWhile(HEAD + "\r\n{\"error\"", ":{\"code\":\"x\"}}", false);

        assertThat(reply.body()).isEqualTo(BODY);
        assertThat(reply.closed()).isFalse();
    }

    @Test
    void pauseInsideAChunkedBody_theWholeAnswerIsRead() throws Exception {
        RawHttp.Reply reply = readWhile(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n",
                "6\r\n world\r\n0\r\n\r\n",
                false);

        assertThat(reply.body()).isEqualTo("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n");
    }

    @Test
    void pauseBeforeTheCloseAnAnswerAnnounced_theCloseIsSeen() throws Exception {
        RawHttp.Reply reply = readWhile(HEAD + "Connection: close\r\n\r\n" + BODY, "", true);

        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.closed()).isTrue();
    }

    @Test
    void settled_wholeAnswersThatKeepTheConnectionOnly() {
        assertThat(RawHttp.settled("")).isFalse();
        assertThat(RawHttp.settled("HTTP/1.1 100 Continue\r\n\r\n")).isTrue();
        assertThat(RawHttp.settled(HEAD + "\r\n" + BODY)).isTrue();
        assertThat(RawHttp.settled(HEAD + "\r\n" + BODY + "HTTP/1.1 2")).isFalse();
        assertThat(RawHttp.settled(HEAD + "\r\n" + BODY.substring(1))).isFalse();
        assertThat(RawHttp.settled(HEAD + "connection: Close\r\n\r\n" + BODY)).isFalse();
        assertThat(RawHttp.settled("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"))
                .isTrue();
    }

    /**
     * Serves one connection: writes {@code first}, pauses {@link #PAUSE_MILLIS}, writes {@code then} and closes if
     * {@code close} (else holds the connection until the read is over), while the test reads with the quiet of
     * {@link #QUIET_MILLIS}.
     */
    private static RawHttp.Reply readWhile(String first, String then, boolean close) throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                RawHttp client = new RawHttp(server.getLocalPort());
                Socket accepted = server.accept()) {
            Thread writer = Thread.ofPlatform().start(() -> {
                try {
                    OutputStream out = accepted.getOutputStream();
                    out.write(first.getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                    TimeUnit.MILLISECONDS.sleep(PAUSE_MILLIS); // the server's pace, not a synchronisation
                    out.write(then.getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                    if (close) {
                        accepted.close();
                    }
                } catch (IOException | InterruptedException e) {
                    // The test ended first.
                }
            });
            RawHttp.Reply reply = client.read(QUIET_MILLIS);
            writer.join();
            return reply;
        }
    }
}

package grid.gateway.enginesim;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** A peer that closes its connection mid-answer is seen, and a scripted reset is not taken for one. */
class AbandonedAnswerTest {
    private static final String STREAMED_CHAT =
            "{\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"a b c d e f g h\"}]}";

    @Test
    void peerClosesMidStream_answerAbandoned() throws Exception {
        try (EngineSimulator engine =
                EngineSettings.builder().instant().answerTokens(1_000_000).start()) {
            CountDownLatch peerGone = new CountDownLatch(1);
            engine.failNext(1, Fault.holdBeforeEvent(1, peerGone));
            try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), engine.port())) {
                send(socket, STREAMED_CHAT);
                readUntil(socket.getInputStream(), "\n\n");
            }
            assertThat(engine.awaitAbandonedAnswer(Duration.ofMillis(200))).isFalse();
            peerGone.countDown();
            assertThat(engine.awaitAbandonedAnswer(Duration.ofSeconds(5))).isTrue();
        }
    }

    @Test
    void scriptedReset_isNoAbandonedAnswer() throws Exception {
        try (EngineSimulator engine = EngineSettings.builder().instant().start()) {
            engine.failNext(1, Fault.resetAfterEvents(2));
            try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), engine.port())) {
                send(socket, STREAMED_CHAT);
                assertThat(socket.getInputStream().readAllBytes()).isNotEmpty();
            }
            assertThat(engine.awaitAbandonedAnswer(Duration.ofMillis(300))).isFalse();
        }
    }

    private static void send(Socket socket, String body) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        + "Content-Length: " + body.length() + "\r\n\r\n" + body)
                .getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private static void readUntil(InputStream in, String end) throws IOException {
        StringBuilder text = new StringBuilder();
        int c;
        while (!text.toString().endsWith(end) && (c = in.read()) >= 0) {
            text.append((char) c);
        }
    }
}

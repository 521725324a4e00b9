package grid.gateway.app.http;

import io.helidon.common.socket.HelidonSocket;
import io.helidon.webserver.http.ServerRequest;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A lingering close: what the client is still sending of a body the gateway answered without reading (refused) is
 * read and discarded for at most {@link #LINGER_TIME} and {@link #LINGER_BYTES}, before the caller closes the
 * connection. Closing a socket with unread bytes makes the kernel answer with a reset, which can destroy the answer the
 * client has not read yet (nginx's lingering close solves the same problem).
 *
 * <p>Stateless and thread-safe.
 */
final class Lingering {
    private static final int SINK = 16 * 1024;
    /** How long a refused body is drained before its connection closes. */
    private static final Duration LINGER_TIME = Duration.ofSeconds(2);
    /** How much of a refused body is drained at most before its connection closes. */
    private static final long LINGER_BYTES = 64L * 1024 * 1024;

    private Lingering() {}

    /**
     * Drains {@code request}'s body, read from {@code body}, within the bounds; when that stream fails before the body
     * ends (its framing is lost), what is left of the bounds is read from {@code socket}, unless it is null. A request
     * that expects {@code 100-continue} and was not sent one is not drained: its client waits for the answer before
     * it sends the body (RFC 9110 §10.1.1), and no 100 follows a refusal.
     */
    static void drain(ServerRequest request, Supplier<InputStream> body, @Nullable HelidonSocket socket) {
        if (!request.continueSent()) {
            // Expect: 100-continue and no 100 sent: the client waits for an answer before it sends the body, and
            // reading it here would make Helidon send 100 Continue after the refusal.
            return;
        }
        FutureTask<Void> drain = new FutureTask<>(() -> {
            long left = drainBody(body, LINGER_BYTES);
            if (left > 0 && socket != null) {
                drainSocket(socket, left);
            }
            return null;
        });
        Thread.ofVirtual().name("grid-body-linger").start(drain);
        try {
            drain.get(LINGER_TIME.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException | ExecutionException e) {
            // Too slow, too long or already broken: the connection is closed anyway, which ends the drain.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Reads and discards at most {@code limit} bytes of a body through its entity stream: 0 once the body ended or
     * {@code limit} bytes were read, or how many bytes may still be drained when the stream failed (its framing is
     * lost, or the client went away).
     */
    private static long drainBody(Supplier<InputStream> body, long limit) {
        long left = limit;
        try (InputStream in = body.get()) {
            byte[] sink = new byte[SINK];
            int n;
            while (left > 0 && (n = in.read(sink, 0, (int) Math.min(sink.length, left))) >= 0) {
                left -= n;
            }
            return 0;
        } catch (IOException | RuntimeException framingLost) { // Helidon's decoder and reader throw their own
            return Math.max(left, 0);
        }
    }

    /** Reads and discards at most about {@code limit} bytes from {@code socket}, until its client stops sending. */
    private static void drainSocket(HelidonSocket socket, long limit) {
        long left = limit;
        while (left > 0) {
            byte[] read = socket.get();
            if (read == null) {
                return;
            }
            left -= read.length;
        }
    }
}

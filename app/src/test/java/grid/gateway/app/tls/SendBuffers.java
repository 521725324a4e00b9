package grid.gateway.app.tls;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/** Test help for a peer that stops reading. */
public final class SendBuffers {
    private SendBuffers() {}

    /**
     * Fills the kernel's buffers under {@code channel} without waiting, as a request the kernel took whole leaves them
     * when the peer reads nothing; the bytes are no TLS records, but the peer never reads them.
     */
    public static void fill(SocketChannel channel) throws IOException {
        ByteBuffer filler = ByteBuffer.allocate(256 * 1024);
        channel.configureBlocking(false);
        try {
            while (channel.write(filler.clear()) > 0) {
                // The kernel took some and may take more.
            }
        } finally {
            channel.configureBlocking(true);
        }
    }
}

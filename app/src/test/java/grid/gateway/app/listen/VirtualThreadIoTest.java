package grid.gateway.app.listen;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * On real sockets, in a child JVM: a virtual thread's socket read that has to wait while the process has no file
 * descriptor free. Primed at start, it waits and reads; unprimed, the JDK's pollers fail to start then, and every
 * later wait fails too, after the descriptors are free again (what a connection flood did to a gateway that had
 * served nothing yet: a 500 for every request that had to wait for its bytes).
 */
class VirtualThreadIoTest {
    @Test
    void primedAtStart_aReadWaitsAndReads_whileNoDescriptorIsFree_andAfter() throws Exception {
        assertThat(child("prime")).isEqualTo("while exhausted: read; after: read");
    }

    @Test
    void unprimed_theFirstWaitWhileExhausted_breaksEveryLaterWait() throws Exception {
        // The JDK behaviour priming exists for; if a JDK starts its pollers eagerly, this fails and priming is moot.
        assertThat(child("none"))
                .startsWith("while exhausted: ExceptionInInitializerError")
                .endsWith("after: NoClassDefFoundError");
    }

    @Test
    void prime_returnsWhenTheRoundEnds() {
        VirtualThreadIo.prime(Duration.ofSeconds(10));
        VirtualThreadIo.prime(Duration.ofSeconds(10));
    }

    private static String child(String mode) throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElseThrow();
        Process process = new ProcessBuilder(
                        "bash",
                        "-c",
                        "ulimit -n 256 && exec \"$0\" -cp \"$1\" \"$2\" \"$3\"",
                        java,
                        System.getProperty("java.class.path"),
                        Child.class.getName(),
                        mode)
                .redirectErrorStream(true)
                .start();
        try (InputStream out = process.getInputStream()) {
            String output = new String(out.readAllBytes(), StandardCharsets.UTF_8).strip();
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(process.exitValue()).as(output).isZero();
            return output;
        } finally {
            process.destroyForcibly();
        }
    }

    /** The child: primes or not, takes every free descriptor, waits on a socket read, frees them, waits again. */
    static final class Child {
        public static void main(String[] args) throws Exception {
            if (args[0].equals("prime")) {
                VirtualThreadIo.prime();
            }
            try (ServerSocketChannel listener = ServerSocketChannel.open()
                            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                    SocketChannel client = SocketChannel.open(listener.getLocalAddress());
                    SocketChannel served = listener.accept()) {
                List<InputStream> held = new ArrayList<>();
                try {
                    while (true) {
                        held.add(new FileInputStream("/dev/null"));
                    }
                } catch (IOException noneFree) {
                    // Every descriptor is taken.
                }
                String during = waitedRead(served, client);
                for (InputStream file : held) {
                    file.close();
                }
                String after = waitedRead(served, client);
                System.out.println("while exhausted: " + during + "; after: " + after);
            }
        }

        /** A virtual thread's read that waits until this (platform) thread writes one byte. */
        private static String waitedRead(SocketChannel served, SocketChannel client) throws Exception {
            AtomicReference<String> result = new AtomicReference<>("no answer");
            Thread reader = Thread.ofVirtual().start(() -> {
                try {
                    result.set(served.read(ByteBuffer.allocate(1)) == 1 ? "read" : "no byte");
                } catch (Throwable e) {
                    result.set(e.getClass().getSimpleName());
                }
            });
            while (reader.isAlive() && reader.getState() != Thread.State.WAITING) {
                Thread.onSpinWait();
            }
            if (reader.isAlive()) {
                // Only to a reader that waits: a byte left unread would let the next read return without waiting.
                client.write(ByteBuffer.wrap(new byte[] {1}));
            }
            reader.join(Duration.ofSeconds(20));
            return result.get();
        }
    }
}

package grid.gateway.app.listen;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Starts the JDK's machinery for virtual threads that wait on sockets before the first connection is accepted.
 *
 * <p>A virtual thread whose socket read or write must wait parks, and a poller wakes it when the socket is ready.
 * The JDK creates its pollers (each an epoll descriptor and a wake-up descriptor) the first time any virtual thread
 * parks on I/O, in a class initializer: if that first time falls while the process is out of file descriptors (a
 * connection flood reaching the open-file limit before the gateway served anything), the initializer fails and the
 * JVM never runs it again, so every later read that has to wait fails (Helidon answers 500) until a restart, long
 * after the flood is gone. Parking one virtual thread on a pipe at start creates the pollers while descriptors are
 * free; afterwards a park needs no new descriptor.
 */
public final class VirtualThreadIo {
    /** A priming round takes microseconds; the bound is for a machine too loaded to run the reader at all. */
    private static final Duration DEADLINE = Duration.ofSeconds(10);

    private VirtualThreadIo() {}

    /** {@link #prime(Duration)} within ten seconds: the gateway calls it before it starts its listeners. */
    public static void prime() {
        prime(DEADLINE);
    }

    /**
     * Parks a virtual thread on an empty pipe's read and wakes it with one byte.
     *
     * @throws IllegalStateException if the JDK cannot park a virtual thread on I/O (no descriptor for its pollers, or
     *     they failed before), or the round did not end within {@code deadline}
     */
    public static void prime(Duration deadline) {
        Pipe pipe;
        try {
            pipe = Pipe.open();
        } catch (IOException e) {
            throw new UncheckedIOException("virtual-thread I/O: cannot open a pipe", e);
        }
        try (Pipe.SourceChannel source = pipe.source();
                Pipe.SinkChannel sink = pipe.sink()) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread reader = Thread.ofVirtual().name("grid-io-prime").start(() -> {
                try {
                    source.read(ByteBuffer.allocate(1));
                } catch (IOException | RuntimeException | LinkageError e) {
                    failure.set(e);
                }
            });
            long end = System.nanoTime() + deadline.toNanos();
            // Only a read that finds the pipe empty parks, so the byte is written once the reader waits for it.
            while (reader.isAlive() && reader.getState() != Thread.State.WAITING) {
                if (System.nanoTime() - end > 0) {
                    throw new IllegalStateException("virtual-thread I/O: the priming read did not wait in " + deadline);
                }
                Thread.onSpinWait();
            }
            if (reader.isAlive()) {
                sink.write(ByteBuffer.wrap(new byte[] {1}));
            }
            if (!reader.join(Duration.ofNanos(Math.max(0, end - System.nanoTime())))) {
                throw new IllegalStateException("virtual-thread I/O: the priming read did not end in " + deadline);
            }
            Throwable failed = failure.get();
            if (failed != null) {
                throw new IllegalStateException("virtual-thread I/O cannot wait on sockets: " + failed, failed);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("virtual-thread I/O: the priming pipe failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("virtual-thread I/O: interrupted while priming", e);
        }
    }
}

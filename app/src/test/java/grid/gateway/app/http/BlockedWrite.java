package grid.gateway.app.http;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Test fixture: waits until a write of the gateway (in this JVM) to a scripted engine is blocked for good, as the
 * kernel says (Linux): the engine's receive window is shut, so the gateway's end of the connection probes it (timer 4,
 * the zero-window probe, in {@code /proc/net/tcp}), and a thread of the gateway is parked for room to write on that
 * socket (its descriptor armed for {@code EPOLLOUT} in one of the JDK's pollers, {@code /proc/self/fdinfo}). While the
 * window is shut nothing the gateway sent can be acknowledged, so no room comes back to its send buffer: the write
 * stays blocked until the engine reads or the connection closes. Waiting for this, not for the engine's last read,
 * leaves the gateway's writer no time to run: on a busy machine a writer that had megabytes of buffer left to fill
 * when the engine stopped reading could still be filling them as the engine's next step began.
 */
final class BlockedWrite {
    /** The zero-window probe timer of {@code /proc/net/tcp}'s {@code tr} column. */
    private static final String PROBE_TIMER = "04";
    /** {@code EPOLLOUT} in an epoll descriptor's {@code events} mask. */
    private static final long EPOLLOUT = 0x4;
    /** How long a wait parks between two looks: 1 ms (a spin would hold a carrier the gateway's writer needs). */
    private static final long POLL_NANOS = 1_000_000L;

    private BlockedWrite() {}

    /** Waits until the gateway's write on {@code engineTcp} (the engine's end of the TCP connection) is blocked. */
    static void await(Socket engineTcp) throws IOException {
        String gatewayEnd = String.format(Locale.ROOT, ":%04X", engineTcp.getPort());
        String engineEnd = String.format(Locale.ROOT, ":%04X", engineTcp.getLocalPort());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            OptionalLong inode = probedSocket(gatewayEnd, engineEnd);
            if (inode.isPresent() && armedForWriting(inode.getAsLong())) {
                return;
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
        throw new AssertionError("the gateway's write to the engine never blocked");
    }

    /** The inode of the gateway's end of the connection while it probes a shut window; empty otherwise. */
    private static OptionalLong probedSocket(String gatewayEnd, String engineEnd) throws IOException {
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            for (String line : Files.readAllLines(Path.of(table))) {
                String[] f = line.strip().split("\\s+");
                if (f.length > 9 && f[1].endsWith(gatewayEnd) && f[2].endsWith(engineEnd)) {
                    return f[5].startsWith(PROBE_TIMER + ":")
                            ? OptionalLong.of(Long.parseLong(f[9]))
                            : OptionalLong.empty();
                }
            }
        }
        return OptionalLong.empty();
    }

    /** Whether the socket {@code inode} is open in this process and armed for writing in an epoll descriptor. */
    private static boolean armedForWriting(long inode) throws IOException {
        String link = "socket:[" + inode + "]";
        String descriptor = null;
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path fd : fds) {
                if (link.equals(target(fd))) {
                    descriptor = fd.getFileName().toString();
                }
            }
        }
        if (descriptor == null) {
            return false;
        }
        try (DirectoryStream<Path> infos = Files.newDirectoryStream(Path.of("/proc/self/fdinfo"))) {
            for (Path info : infos) {
                for (String line : lines(info)) {
                    // tfd:       12 events: 4000001c data: ...
                    String[] f = line.strip().split("\\s+");
                    if (f.length > 3
                            && f[0].equals("tfd:")
                            && f[1].equals(descriptor)
                            && (Long.parseLong(f[3], 16) & EPOLLOUT) != 0) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** Where the descriptor {@code fd} points, or null when it closed meanwhile. */
    private static @Nullable String target(Path fd) {
        try {
            return Files.readSymbolicLink(fd).toString();
        } catch (IOException closed) {
            return null;
        }
    }

    /** The lines of a descriptor's fdinfo; none when it closed meanwhile. */
    private static List<String> lines(Path info) throws IOException {
        try {
            return Files.readAllLines(info);
        } catch (NoSuchFileException closed) {
            return List.of();
        }
    }
}

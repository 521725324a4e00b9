package grid.gateway.app.listen;

import com.sun.management.UnixOperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.util.OptionalLong;

/**
 * The process's file descriptors: how many are open and the open-file limit, from which
 * {@code server.max_connections: auto} derives the client connection cap
 * ({@link grid.gateway.app.config.ServerSettings.Binding#connectionsFor}). The JVM raises its soft limit to the hard
 * limit at start (HotSpot's {@code MaxFDLimit}), so the limit read here is the environment's hard limit.
 *
 * <p>Stateless and thread-safe.
 */
public final class OpenFiles {
    private OpenFiles() {}

    /** The process's open-file limit; empty where the platform does not say (not a Unix). */
    public static OptionalLong limit() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof UnixOperatingSystemMXBean unix) {
            long max = unix.getMaxFileDescriptorCount();
            return max > 0 ? OptionalLong.of(max) : OptionalLong.empty();
        }
        return OptionalLong.empty();
    }

    /**
     * Descriptors open now; empty where the platform does not say, or when counting failed: the count lists
     * {@code /proc/self/fd}, which takes a descriptor, so with none free the JDK throws an {@link InternalError}
     * ("errno: 24 ... Unable to open directory /proc/self/fd") instead of answering.
     */
    public static OptionalLong open() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof UnixOperatingSystemMXBean unix) {
            try {
                long open = unix.getOpenFileDescriptorCount();
                return open >= 0 ? OptionalLong.of(open) : OptionalLong.empty();
            } catch (InternalError noDescriptorFree) {
                return OptionalLong.empty();
            }
        }
        return OptionalLong.empty();
    }
}

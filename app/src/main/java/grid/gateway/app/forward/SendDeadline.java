package grid.gateway.app.forward;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * How long the client may take no byte of its answer ({@code server.send_timeout_ms}), and where its progress is read.
 *
 * @param timeout the longest time a write to the client may wait with the client taking nothing: the value in force,
 *     read at each look at a blocked write (a reload applies to answers in flight too, as it does to every other write
 *     the send watch times)
 * @param progress the kernel's view of what the client took ({@link ClientProgress#NONE}: none)
 * @param timedOut told when the client was cut for it (a metric)
 */
public record SendDeadline(Supplier<Duration> timeout, ClientProgress progress, Runnable timedOut) {
    public SendDeadline {
        requireNonNull(timeout, "timeout");
        requireNonNull(progress, "progress");
        requireNonNull(timedOut, "timedOut");
    }

    /** A deadline whose timeout never changes. */
    public SendDeadline(Duration timeout, ClientProgress progress, Runnable timedOut) {
        this(fixed(requireNonNull(timeout, "timeout")), progress, timedOut);
    }

    private static Supplier<Duration> fixed(Duration timeout) {
        return () -> timeout;
    }

    /** The timeout in force now, in nanoseconds. */
    long nanos() {
        return timeout.get().toNanos();
    }
}

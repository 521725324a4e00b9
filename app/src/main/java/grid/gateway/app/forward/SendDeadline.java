package grid.gateway.app.forward;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * How long the client may take no byte of its answer ({@code server.send_timeout_ms}), and where its progress is read.
 *
 * @param timeout the longest time a write to the client may wait with the client taking nothing
 * @param progress the kernel's view of what the client took ({@link ClientProgress#NONE}: none)
 * @param timedOut told when the client was cut for it (a metric)
 */
public record SendDeadline(Duration timeout, ClientProgress progress, Runnable timedOut) {
    public SendDeadline {
        requireNonNull(timeout, "timeout");
        requireNonNull(progress, "progress");
        requireNonNull(timedOut, "timedOut");
    }
}

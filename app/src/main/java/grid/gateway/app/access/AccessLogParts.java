package grid.gateway.app.access;

import static java.util.Objects.requireNonNull;

import java.time.InstantSource;
import java.util.function.Supplier;

/**
 * What the access log is given from outside: where lines go, where new request ids come from, and the wall clock
 * of the {@code time} field. Tests inject all three, so lines are collected and ids and times are known.
 *
 * @param sink where lines go
 * @param requestIds new request ids, for requests without a well-formed one
 * @param wallClock the time a request arrived
 */
public record AccessLogParts(AccessSink sink, Supplier<String> requestIds, InstantSource wallClock) {
    public AccessLogParts {
        requireNonNull(sink, "sink");
        requireNonNull(requestIds, "requestIds");
        requireNonNull(wallClock, "wallClock");
    }

    /** Production: stdout, random UUIDs, the system clock. */
    public static AccessLogParts production() {
        return new AccessLogParts(AccessSink.stdout(), RequestIds.randomUuids(), InstantSource.system());
    }
}

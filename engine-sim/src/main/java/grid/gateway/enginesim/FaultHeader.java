package grid.gateway.enginesim;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Faults asked for by the request itself, in the {@value #NAME} header, so that a simulator running as its own
 * process (the soak, the demo grid) can be made to fail request by request. The gateway forwards the header like any
 * other; the simulator alone reads it. Comma-separated items:
 *
 * <pre>
 *   status=429          an error answer (400–599) in the API's shape; with retry-after=S, Retry-After: S
 *   first-byte-ms=N     nothing written for N ms of simulated time (slot taken)
 *   pause-ms=N          N ms of simulated time before every stream event but the first
 *   reset-after=N       the connection closes abruptly after N stream events (a JSON answer: after half its body)
 *   reset-after-answer=1  the whole answer, then the connection is reset under the next request sent on it
 * </pre>
 *
 * <p>Stateless and thread-safe.
 */
final class FaultHeader {
    /** The request header that carries the faults. */
    static final String NAME = "x-sim-fault";

    private FaultHeader() {}

    /**
     * The faults {@code value} asks for.
     *
     * @throws IllegalArgumentException naming the item that is not understood
     */
    static List<Fault> parse(String value) {
        List<Fault> faults = new ArrayList<>();
        Optional<Integer> status = Optional.empty();
        Optional<Duration> retryAfter = Optional.empty();
        for (String item : value.split(",")) {
            String trimmed = item.trim();
            int eq = trimmed.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException(NAME + ": " + trimmed + " (expected: name=value)");
            }
            String name = trimmed.substring(0, eq);
            long number = number(trimmed, trimmed.substring(eq + 1));
            switch (name) {
                case "status" -> status = Optional.of((int) number);
                case "retry-after" -> retryAfter = Optional.of(Duration.ofSeconds(number));
                case "first-byte-ms" -> faults.add(Fault.delayFirstByte(Duration.ofMillis(number)));
                case "pause-ms" -> faults.add(Fault.pauseBetweenEvents(Duration.ofMillis(number)));
                case "reset-after" -> faults.add(Fault.resetAfterEvents((int) number));
                case "reset-after-answer" -> {
                    if (number > 0) {
                        faults.add(Fault.resetAfterAnswer());
                    }
                }
                default -> throw new IllegalArgumentException(NAME + ": unknown fault " + name);
            }
        }
        if (status.isPresent()) {
            faults.add(new Fault.ErrorStatus(status.get(), retryAfter));
        } else if (retryAfter.isPresent()) {
            throw new IllegalArgumentException(NAME + ": retry-after needs a status");
        }
        return faults;
    }

    private static long number(String item, String text) {
        try {
            long n = Long.parseLong(text);
            if (n < 0 || n > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(NAME + ": " + item + " (expected: 0.." + Integer.MAX_VALUE + ")");
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(NAME + ": " + item + " (expected: a whole number)", e);
        }
    }
}

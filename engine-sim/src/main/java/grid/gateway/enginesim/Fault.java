package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

/**
 * A failure the simulator produces on demand, scripted with {@link EngineSimulator#failNext} or
 * {@link EngineSimulator#failOnPath}. Several faults can apply to one request (a held first byte and a reset, say).
 *
 * <pre>
 * request ─▶ ErrorStatus? ─▶ slot (queue) ─▶ HoldFirstByte / DelayFirstByte ─▶ prefill ─▶ events…
 *             answers at once,                 inside the slot: counted            PauseBetweenEvents, HoldBeforeEvent,
 *             nothing queued                   as running                          ResetAfterEvents
 *                                                                  ─▶ whole answer ─▶ ResetAfterAnswer: the next request
 *                                                                                     on the connection finds it reset
 * </pre>
 *
 * <p>Immutable records; a latch inside one is shared with the test that opens it.
 */
public sealed interface Fault {
    /** An error answer in the API's own shape, with {@code Retry-After} when {@code retryAfter} is present. */
    record ErrorStatus(int status, Optional<Duration> retryAfter) implements Fault {
        /** Validates. */
        public ErrorStatus {
            requireNonNull(retryAfter, "retryAfter");
            if (status < 400 || status > 599) {
                throw new IllegalArgumentException("status: " + status + " (expected: 400-599)");
            }
        }
    }

    /** Holds the answer, slot taken and nothing written, until {@code gate} opens or the simulator closes. */
    record HoldFirstByte(CountDownLatch gate) implements Fault {
        /** Validates. */
        public HoldFirstByte {
            requireNonNull(gate, "gate");
        }
    }

    /** Delays the answer by {@code delay} through the pacer, slot taken and nothing written. */
    record DelayFirstByte(Duration delay) implements Fault {
        /** Validates. */
        public DelayFirstByte {
            requireNonNull(delay, "delay");
        }
    }

    /** Pauses {@code pause} through the pacer before every stream event but the first. */
    record PauseBetweenEvents(Duration pause) implements Fault {
        /** Validates. */
        public PauseBetweenEvents {
            requireNonNull(pause, "pause");
        }
    }

    /** Holds the stream before event {@code index} (0-based) until {@code gate} opens. */
    record HoldBeforeEvent(int index, CountDownLatch gate) implements Fault {
        /** Validates. */
        public HoldBeforeEvent {
            requireNonNull(gate, "gate");
            if (index < 0) {
                throw new IllegalArgumentException("index: " + index + " (expected: >= 0)");
            }
        }
    }

    /**
     * Closes the connection abruptly after {@code events} stream events, so the client sees a chunked body that
     * never ends properly. With 0 the connection closes before anything is written: the client gets no answer at
     * all. A plain JSON answer is cut after its headers and half its body (with 0, before anything).
     */
    record ResetAfterEvents(int events) implements Fault {
        /** Validates. */
        public ResetAfterEvents {
            if (events < 0) {
                throw new IllegalArgumentException("events: " + events + " (expected: >= 0)");
            }
        }
    }

    /**
     * Sends the whole answer as a keep-alive answer (whatever it is: an error status, a validation 400, a success),
     * then resets the connection when the next request arrives on it, before any byte of answer to that request:
     * what a pooled client meets when it reuses a connection vLLM closed after refusing a request. The reset request
     * is not recorded (no engine would have received it); {@link EngineSimulator#connectionResets()} counts it.
     */
    record ResetAfterAnswer() implements Fault {}

    /** An error answer with {@code status} (400–599) and no {@code Retry-After}. */
    static Fault status(int status) {
        return new ErrorStatus(status, Optional.empty());
    }

    /** A 429 with {@code Retry-After} in whole seconds (rounded up). */
    static Fault rateLimited(Duration retryAfter) {
        return new ErrorStatus(429, Optional.of(retryAfter));
    }

    /** An error answer with {@code status} and {@code Retry-After} in whole seconds (rounded up). */
    static Fault status(int status, Duration retryAfter) {
        return new ErrorStatus(status, Optional.of(retryAfter));
    }

    /** Holds the first byte until {@code gate} opens. */
    static Fault holdFirstByte(CountDownLatch gate) {
        return new HoldFirstByte(gate);
    }

    /** Delays the first byte by {@code delay} of simulated time. */
    static Fault delayFirstByte(Duration delay) {
        return new DelayFirstByte(delay);
    }

    /** Pauses between stream events. */
    static Fault pauseBetweenEvents(Duration pause) {
        return new PauseBetweenEvents(pause);
    }

    /** Holds the stream before event {@code index} until {@code gate} opens. */
    static Fault holdBeforeEvent(int index, CountDownLatch gate) {
        return new HoldBeforeEvent(index, gate);
    }

    /** Resets the connection after {@code events} stream events. */
    static Fault resetAfterEvents(int events) {
        return new ResetAfterEvents(events);
    }

    /** Answers, then resets the connection under the next request sent on it. */
    static Fault resetAfterAnswer() {
        return new ResetAfterAnswer();
    }
}

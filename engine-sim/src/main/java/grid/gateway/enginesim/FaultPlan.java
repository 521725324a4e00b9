package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CountDownLatch;

/**
 * The faults that apply to one request, sorted by where they act: before the queue (an error status), inside the
 * slot before the first byte (holds and delays), and between stream events (pauses, holds, a reset).
 *
 * <p>Immutable.
 *
 * @param error the error answer, if any; the last one given wins
 * @param firstByteGates latches that must all open before the first byte
 * @param firstByteDelay simulated time before the first byte; zero for none
 * @param eventPause simulated time before every stream event but the first; zero for none
 * @param eventGates latches that hold the stream before the event of the same index
 * @param resetAfter events written before the connection is reset; empty for a normal end
 * @param resetAfterAnswer whether the connection is reset under the next request after a whole answer
 */
record FaultPlan(
        Optional<Fault.ErrorStatus> error,
        List<CountDownLatch> firstByteGates,
        Duration firstByteDelay,
        Duration eventPause,
        List<Fault.HoldBeforeEvent> eventGates,
        OptionalInt resetAfter,
        boolean resetAfterAnswer) {

    /** No fault: a normal answer. */
    static final FaultPlan NONE = new FaultPlan(
            Optional.empty(), List.of(), Duration.ZERO, Duration.ZERO, List.of(), OptionalInt.empty(), false);

    FaultPlan {
        requireNonNull(error, "error");
        firstByteGates = List.copyOf(firstByteGates);
        requireNonNull(firstByteDelay, "firstByteDelay");
        requireNonNull(eventPause, "eventPause");
        eventGates = List.copyOf(eventGates);
        requireNonNull(resetAfter, "resetAfter");
    }

    static FaultPlan of(List<Fault> faults) {
        Optional<Fault.ErrorStatus> error = Optional.empty();
        List<CountDownLatch> gates = new ArrayList<>();
        Duration delay = Duration.ZERO;
        Duration pause = Duration.ZERO;
        List<Fault.HoldBeforeEvent> eventGates = new ArrayList<>();
        OptionalInt reset = OptionalInt.empty();
        boolean resetAfterAnswer = false;
        for (Fault fault : faults) {
            switch (requireNonNull(fault, "fault")) {
                case Fault.ErrorStatus e -> error = Optional.of(e);
                case Fault.HoldFirstByte h -> gates.add(h.gate());
                case Fault.DelayFirstByte d -> delay = delay.plus(d.delay());
                case Fault.PauseBetweenEvents p -> pause = pause.plus(p.pause());
                case Fault.HoldBeforeEvent h -> eventGates.add(h);
                case Fault.ResetAfterEvents r -> reset = OptionalInt.of(r.events());
                case Fault.ResetAfterAnswer r -> resetAfterAnswer = true;
            }
        }
        return new FaultPlan(error, gates, delay, pause, eventGates, reset, resetAfterAnswer);
    }

    /** Waits for the first-byte gates and delay; called with the slot taken. */
    void holdFirstByte(Pacer pacer) throws InterruptedException {
        for (CountDownLatch gate : firstByteGates) {
            gate.await();
        }
        pacer.pause(firstByteDelay);
    }

    /** Waits for what comes before stream event {@code index}: the pause between events, then any gate. */
    void holdBeforeEvent(int index, Pacer pacer) throws InterruptedException {
        if (index > 0) {
            pacer.pause(eventPause);
        }
        for (Fault.HoldBeforeEvent hold : eventGates) {
            if (hold.index() == index) {
                hold.gate().await();
            }
        }
    }

    /** Whether the connection is reset once {@code written} events are out. */
    boolean resetsAfter(int written) {
        return resetAfter.isPresent() && resetAfter.getAsInt() == written;
    }
}

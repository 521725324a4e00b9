package grid.gateway.app.forward;

/**
 * Times how long a relay's writer has held an answer's bytes back from the client (an event buffered to be tagged
 * whole, an id value held until its closing quote), so that the relay hands them on once they were held an idle
 * timeout: nothing held goes to the client, and an engine that trickles an event or an id (each read within the idle
 * timeout) would otherwise keep it from the client for as long as it trickles (docs/design.md §H20).
 *
 * <p>Not thread-safe; one per answer, on the relay's thread.
 */
final class HoldTimer {
    private static final long NOT_HOLDING = -1;

    private final IdleAlarm alarm;
    private long since = NOT_HOLDING;

    HoldTimer(IdleAlarm alarm) {
        this.alarm = alarm;
    }

    /**
     * After a read: whether what is held now ({@code holds}) has been held since a read an idle timeout or more ago;
     * once true, the timer starts afresh. The clock is read only while something is held.
     */
    boolean overdue(boolean holds) {
        if (!holds) {
            since = NOT_HOLDING;
            return false;
        }
        if (since == NOT_HOLDING) {
            since = alarm.now();
            return false;
        }
        if (alarm.idleTimeoutPassedSince(since)) {
            since = NOT_HOLDING;
            return true;
        }
        return false;
    }
}

package grid.gateway.app.load;

import grid.gateway.app.load.QueueScraper.Outcome;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.time.MonotonicClock;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The log lines of the queue scrapes' outcomes ({@link QueueScraper}): a cluster whose scrapes start failing (or
 * partly failing) is said once at WARNING, and once at INFO when they work again; a repeat says nothing.
 *
 * <p>A cluster that changes between failing and working round after round (a pod that answers every other scrape)
 * would write a line a round. So a cluster writes at most {@link #LINES} lines in {@link #QUIET}: a failure and its
 * recovery are both said at once, and a change past those is held; the outcome in force is then said at the first
 * round once the window allows, with how many changes came since the cluster's last line. Its last line so says its
 * outcome in force within a minute and a poll interval.
 *
 * <p>Thread-safe: a cluster's rounds run one at a time, and the per-cluster map is concurrent.
 */
final class ScrapeOutcomeLog {
    /** The window in which a cluster writes at most {@link #LINES} lines. */
    static final Duration QUIET = Duration.ofMinutes(1);
    /** The most lines of one cluster in {@link #QUIET}: a failure and its recovery. */
    static final int LINES = 2;

    /** The logger of {@link QueueScraper}, whose lines these are. */
    private static final System.Logger LOG = System.getLogger(QueueScraper.class.getName());

    private final MonotonicClock clock;
    private final ConcurrentMap<ClusterId, State> states = new ConcurrentHashMap<>();

    /**
     * What a cluster's log said and what it saw since.
     *
     * @param last the outcome of its last round
     * @param said the outcome its last line said (working when none was said yet)
     * @param saidAt when its last line was written
     * @param earlierAt when the line before it was written
     * @param lines how many lines it wrote, up to {@link #LINES}
     * @param changes how many times its outcome changed since its last line
     */
    private record State(Outcome last, Outcome said, long saidAt, long earlierAt, int lines, int changes) {}

    /** A log timed by {@code clock}. */
    ScrapeOutcomeLog(MonotonicClock clock) {
        this.clock = clock;
    }

    /** Forgets the clusters not in {@code live}. */
    void retain(Set<ClusterId> live) {
        states.keySet().retainAll(live);
    }

    /** Notes {@code outcome} of a round of {@code id}, failed for {@code why}; logs it when it is news (see above). */
    Outcome noted(ClusterId id, Outcome outcome, String why) {
        long now = clock.nanoTime();
        State before = states.get(id);
        State state = before == null ? new State(Outcome.SAMPLED, Outcome.SAMPLED, now, now, 0, 0) : before;
        int changes = state.changes() + (before != null && outcome != state.last() ? 1 : 0);
        // The oldest line that counts against the window: the one before the last, once LINES were written.
        boolean due = state.lines() < LINES || now - state.earlierAt() >= QUIET.toNanos();
        if (outcome == state.said() || !due) {
            states.put(id, new State(outcome, state.said(), state.saidAt(), state.earlierAt(), state.lines(), changes));
            return outcome;
        }
        String since = changes > 1 ? " (its scrapes changed " + changes + " times since its last line)" : "";
        log(id, outcome, why, since);
        states.put(id, new State(outcome, outcome, now, state.saidAt(), Math.min(LINES, state.lines() + 1), 0));
        return outcome;
    }

    private static void log(ClusterId id, Outcome outcome, String why, String since) {
        if (outcome == Outcome.SAMPLED) {
            LOG.log(System.Logger.Level.INFO, "queue scrape of cluster " + id + " works again" + since);
        } else if (outcome == Outcome.PARTLY_SAMPLED) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "queue scrape of cluster " + id + " partly failed: " + why
                            + "; its depth is the sum over the pods that answered and the silent pods' latest depths"
                            + since);
        } else {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "queue scrape of cluster " + id + ": " + why
                            + "; no depth recorded, the cluster becomes unmeasured when its window empties" + since);
        }
    }
}

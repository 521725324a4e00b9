package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The scripted failures of one simulator: rules in the order they were added, each for the next {@code times}
 * requests, optionally only those to one exact path. A request takes the faults of the first rule that matches
 * and uses up one of its times.
 *
 * <p>Thread-safe: one lock around the rule list, never held across I/O.
 */
final class FaultScript {
    /** A rule's times when it never runs out. */
    static final int ALWAYS = Integer.MAX_VALUE;

    private final ReentrantLock lock = new ReentrantLock();
    private final List<Rule> rules = new ArrayList<>();

    void add(Optional<String> path, int times, List<Fault> faults) {
        requireNonNull(path, "path");
        if (times <= 0) {
            throw new IllegalArgumentException("times: " + times + " (expected: > 0)");
        }
        if (faults.isEmpty()) {
            throw new IllegalArgumentException("faults: none given");
        }
        lock.lock();
        try {
            rules.add(new Rule(path, times, FaultPlan.of(faults)));
        } finally {
            lock.unlock();
        }
    }

    /** The faults for one request to {@code path}; {@link FaultPlan#NONE} when no rule matches. */
    FaultPlan take(String path) {
        lock.lock();
        try {
            for (Iterator<Rule> it = rules.iterator(); it.hasNext(); ) {
                Rule rule = it.next();
                if (rule.path.isPresent() && !rule.path.get().equals(path)) {
                    continue;
                }
                if (rule.times != ALWAYS && --rule.times == 0) {
                    it.remove();
                }
                return rule.plan;
            }
            return FaultPlan.NONE;
        } finally {
            lock.unlock();
        }
    }

    void clear() {
        lock.lock();
        try {
            rules.clear();
        } finally {
            lock.unlock();
        }
    }

    /** One rule; {@code times} changes under the script's lock only. */
    private static final class Rule {
        final Optional<String> path;
        int times;
        final FaultPlan plan;

        Rule(Optional<String> path, int times, FaultPlan plan) {
            this.path = path;
            this.times = times;
            this.plan = plan;
        }
    }
}

package grid.gateway.app;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler whose one-shot tasks ({@link #schedule(Runnable, long, TimeUnit)}) run only when the test says
 * ({@link #fire()}), whatever their delay: a deadline run on a watchdog goes off at a point of the test, not at a
 * point of the wall clock, so a verdict about what it cuts does not depend on how fast the machine is. A task
 * cancelled before {@link #fire()} does not run. Other kinds of scheduling run as a {@link ScheduledThreadPoolExecutor}
 * runs them.
 */
public final class HeldAlarms extends ScheduledThreadPoolExecutor {
    /** Far past any test's end: the real scheduling only gives the future its cancel. */
    private static final long NEVER_DAYS = 365;

    private final List<Held> held = new CopyOnWriteArrayList<>();

    public HeldAlarms() {
        super(1);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        ScheduledFuture<?> future = super.schedule(() -> {}, NEVER_DAYS, TimeUnit.DAYS);
        held.add(new Held(command, future));
        return future;
    }

    /** How many one-shot tasks were scheduled so far. */
    public int scheduled() {
        return held.size();
    }

    /** Runs, on this thread, every one-shot task scheduled so far and not cancelled; returns how many ran. */
    public int fire() {
        int ran = 0;
        for (Held task : held) {
            held.remove(task);
            if (task.future().cancel(false)) {
                task.command().run();
                ran++;
            }
        }
        return ran;
    }

    private record Held(Runnable command, ScheduledFuture<?> future) {}
}

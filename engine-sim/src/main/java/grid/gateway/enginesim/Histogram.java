package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One vLLM histogram family: its name, help text and bucket bounds as vLLM declares them, and the observations so far.
 *
 * <p>Thread-safe: one lock around the counts, so that a scrape never sees a count without its sum.
 */
final class Histogram {
    /** vLLM's buckets of its request phase and latency histograms (prefill, decode, queue, inference, e2e), seconds. */
    static final List<Double> REQUEST_SECONDS = List.of(
            0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0,
            960.0, 1920.0, 7680.0);
    /** vLLM's buckets of time to first token, seconds. */
    static final List<Double> FIRST_TOKEN_SECONDS = List.of(
            0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0,
            80.0, 160.0, 640.0, 2560.0);
    /** vLLM's buckets of the time between output tokens, seconds. */
    static final List<Double> TOKEN_SECONDS = List.of(
            0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0);
    /** vLLM's buckets of per-request token counts (for a 4096-token context). */
    static final List<Double> REQUEST_TOKENS =
            List.of(1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0);
    /** vLLM's buckets of tokens per engine step. */
    static final List<Double> STEP_TOKENS =
            List.of(1.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 1024.0, 2048.0, 4096.0, 8192.0, 16384.0);
    /** vLLM's buckets of the {@code n} request parameter. */
    static final List<Double> PARAMS_N = List.of(1.0, 2.0, 5.0, 10.0, 20.0);

    private final String name;
    private final String help;
    private final List<Double> bounds;
    private final ReentrantLock lock = new ReentrantLock();
    private final long[] buckets;
    private long count;
    private double sum;

    Histogram(String name, String help, List<Double> bounds) {
        this.name = requireNonNull(name, "name");
        this.help = requireNonNull(help, "help");
        this.bounds = List.copyOf(bounds);
        this.buckets = new long[bounds.size()];
    }

    /** Records one value; a negative one counts as 0. */
    void observe(double value) {
        observe(value, 1);
    }

    /** Records {@code times} observations of {@code value}. */
    void observe(double value, long times) {
        double v = Math.max(0, value);
        lock.lock();
        try {
            for (int i = 0; i < buckets.length; i++) {
                if (v <= bounds.get(i)) {
                    buckets[i] += times;
                }
            }
            count += times;
            sum += v * times;
        } finally {
            lock.unlock();
        }
    }

    /** Appends the family, then its {@code _created} gauge, to {@code out}. */
    void write(Exposition out) {
        Exposition.Counts counts;
        lock.lock();
        try {
            counts =
                    new Exposition.Counts(bounds, Arrays.stream(buckets).boxed().toList(), count, sum);
        } finally {
            lock.unlock();
        }
        out.histogram(name, help, counts);
    }
}

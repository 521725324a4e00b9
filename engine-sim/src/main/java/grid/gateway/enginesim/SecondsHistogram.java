package grid.gateway.enginesim;

import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A Prometheus histogram of seconds, written as vLLM's Python client writes one: cumulative {@code _bucket} series
 * with {@code le} (ending with {@code +Inf}), then {@code _count} and {@code _sum}.
 *
 * <p>Thread-safe: one lock around the counts, so that a scrape never sees a count without its sum.
 */
final class SecondsHistogram {
    /** vLLM's buckets for its request phase histograms (prefill, inference, queue time), in seconds. */
    static final List<Double> VLLM_REQUEST_BUCKETS = List.of(
            0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0,
            960.0, 1920.0, 7680.0);

    private final String name;
    private final String help;
    private final ReentrantLock lock = new ReentrantLock();
    private final long[] buckets = new long[VLLM_REQUEST_BUCKETS.size()];
    private long count;
    private double sum;

    SecondsHistogram(String name, String help) {
        this.name = name;
        this.help = help;
    }

    /** Records one value; a negative one counts as 0. */
    void observe(double seconds) {
        double value = Math.max(0, seconds);
        lock.lock();
        try {
            for (int i = 0; i < buckets.length; i++) {
                if (value <= VLLM_REQUEST_BUCKETS.get(i)) {
                    buckets[i]++;
                }
            }
            count++;
            sum += value;
        } finally {
            lock.unlock();
        }
    }

    /** Appends the family to {@code out}; {@code labels} is the inside of the braces, such as {@code engine="0"}. */
    void write(StringBuilder out, String labels) {
        lock.lock();
        try {
            out.append("# HELP ").append(name).append(' ').append(help).append('\n');
            out.append("# TYPE ").append(name).append(" histogram\n");
            for (int i = 0; i < buckets.length; i++) {
                bucket(out, labels, Double.toString(VLLM_REQUEST_BUCKETS.get(i)), buckets[i]);
            }
            bucket(out, labels, "+Inf", count);
            out.append(name)
                    .append("_count{")
                    .append(labels)
                    .append("} ")
                    .append((double) count)
                    .append('\n');
            out.append(name)
                    .append("_sum{")
                    .append(labels)
                    .append("} ")
                    .append(sum)
                    .append('\n');
        } finally {
            lock.unlock();
        }
    }

    private void bucket(StringBuilder out, String labels, String le, long value) {
        out.append(name)
                .append("_bucket{")
                .append(labels)
                .append(",le=\"")
                .append(le)
                .append("\"} ")
                .append((double) value)
                .append('\n');
    }
}

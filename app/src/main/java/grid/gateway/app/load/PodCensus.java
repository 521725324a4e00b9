package grid.gateway.app.load;

/**
 * How many pods a backend cluster had in its latest scrape round, and how many of them gave a queue depth.
 *
 * <pre>
 *   measured == pods &gt; 0     measured: the depth is the sum over every pod
 *   0 &lt; measured &lt; pods     partly measured: the sum over the pods that answered and the silent ones' latest
 *   measured == 0            nothing recorded this round: unmeasured once the window empties
 * </pre>
 *
 * @param pods the pods the round scraped (its {@code metrics_url}s, or the addresses its {@code metrics_dns} name
 *     resolved to)
 * @param measured those that answered 2xx with a finite queue metric
 */
public record PodCensus(int pods, int measured) {
    /** Before the first round. */
    public static final PodCensus NONE = new PodCensus(0, 0);

    public PodCensus {
        if (pods < 0 || measured < 0 || measured > pods) {
            throw new IllegalArgumentException("census: " + measured + " of " + pods);
        }
    }

    /** Whether some pods gave a depth and some did not. */
    public boolean partlyMeasured() {
        return measured > 0 && measured < pods;
    }

    /** The pods that did not give a depth. */
    public int unmeasured() {
        return pods - measured;
    }
}

package grid.gateway.routing.select;

/**
 * When a run makes its clusters sticky (docs/design.md §6; the seed's "How it chooses"):
 *
 * <pre>
 *   sticky(run, blocks) = run ≥ 4 and (run ≥ 32 or run ≥ 80% of blocks)
 * </pre>
 *
 * A run under 4 blocks never counts, so identical short prompts spread by load; a 32-block run (about 8 KiB) is
 * always sticky, however long the prompt. The 80% test is done in integers ({@code 5·run ≥ 4·blocks}) so that
 * exactly 80% is sticky without a floating-point edge.
 *
 * <p>Stateless and thread-safe.
 */
public final class StickyRule {
    /** Runs shorter than this never count. */
    public static final int MIN_RUN = 4;
    /** Runs at least this long always count. */
    public static final int ALWAYS_STICKY_RUN = 32;

    private StickyRule() {}

    /** Whether a run of {@code run} blocks, of a request of {@code blocks} blocks, is sticky. */
    public static boolean isSticky(int run, int blocks) {
        return run >= MIN_RUN && (run >= ALWAYS_STICKY_RUN || 5L * run >= 4L * blocks);
    }
}

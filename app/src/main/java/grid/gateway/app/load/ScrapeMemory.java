package grid.gateway.app.load;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory every queue scrape's pages may hold at once, across all clusters and pods: {@link #LIMIT} bytes. A page
 * reserves its buffer here before it allocates it, and the text decoded from it before it parses it, and gives all of
 * it back once parsed ({@link PodFetch}). One page may be up to {@link PodFetch#MAX_EXPOSITION_BYTES}, and a cluster's
 * pods are scraped in parallel, so without a shared bound pods × 8 MiB could be held at once.
 *
 * <p>A page this budget has no room for fails its pod's scrape at once (never waits: pages that each hold part of the
 * budget and wait for more would wait for each other); the pod is silent in its cluster's sum, as for any other
 * failed scrape. A vLLM page is tens to hundreds of KiB, so the limit holds hundreds of ordinary pages at once and only
 * pages near the per-page limit, many at a time, meet it.
 *
 * <p>Thread-safe: one atomic counter.
 */
final class ScrapeMemory {
    /** The bytes all scrapes' pages may hold at once: eight pages of the largest size. */
    static final long LIMIT = 64L * 1024 * 1024;

    private final long limit;
    private final AtomicLong inUse = new AtomicLong();

    /** A budget of {@link #LIMIT} bytes. */
    ScrapeMemory() {
        this(LIMIT);
    }

    /** A budget of {@code limit} bytes (tests). */
    ScrapeMemory(long limit) {
        this.limit = limit;
    }

    /** Whether {@code bytes} more could be held; when true they are held until {@link #release}d. */
    boolean tryReserve(long bytes) {
        while (true) {
            long now = inUse.get();
            if (now + bytes > limit) {
                return false;
            }
            if (inUse.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    /** Gives back {@code bytes} reserved before. */
    void release(long bytes) {
        inUse.addAndGet(-bytes);
    }

    /** Bytes held now. */
    long inUse() {
        return inUse.get();
    }

    /** The limit, for the failure's words. */
    long limit() {
        return limit;
    }
}

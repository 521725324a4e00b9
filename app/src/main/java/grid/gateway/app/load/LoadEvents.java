package grid.gateway.app.load;

import grid.gateway.routing.grid.ClusterId;
import java.util.function.LongSupplier;

/** What the scraper tells the metrics; each method returns at once and never throws. */
public interface LoadEvents {
    /** Tells nothing. */
    LoadEvents NONE = new LoadEvents() {};

    /** A scrape round of {@code cluster} ended with {@code census}. */
    default void podsScraped(ClusterId cluster, PodCensus census) {}

    /** {@code cluster}'s {@code metrics_dns} name failed to resolve; its last known pods stay in use. */
    default void dnsFailed(ClusterId cluster) {}

    /** Where the bytes all scrapes' pages hold now ({@link ScrapeMemory}) are read; told once, by {@code events}. */
    default void scrapePageBytes(LongSupplier bytes) {}
}

package grid.gateway.routing;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.select.LoadOrder;

/**
 * The {@code load} block's rules for reading the load signal in selection (the poll interval and window belong to the
 * scraper and the window).
 *
 * <p>Thread-safe (immutable).
 *
 * @param countSentSinceScrape {@code load.count_sent_since_scrape}: a cluster's depth also counts what this replica
 *     sent it since its latest scrape
 * @param orderBy {@code load.order_by}: how candidates are ordered by load
 */
public record LoadRules(boolean countSentSinceScrape, LoadOrder orderBy) {
    /** The seed's rules: scraped depths only, ordered by depth. */
    public static final LoadRules SEED = new LoadRules(false, LoadOrder.DEPTH);

    public LoadRules {
        requireNonNull(orderBy, "orderBy");
    }
}

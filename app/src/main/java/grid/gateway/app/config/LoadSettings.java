package grid.gateway.app.config;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.LoadRules;
import grid.gateway.routing.select.LoadOrder;
import java.time.Duration;

/**
 * The {@code plugins.grid_site_route.load} block (docs/design.md §6).
 *
 * <p>Thread-safe (immutable).
 *
 * @param pollInterval {@code poll_interval_ms}: how often each cluster's metrics are scraped; default 1000 ms
 * @param window {@code window_secs}: how far back the windowed worst queue depth looks; default 2 s, not the contract sketch's 10 (docs/decisions.md: the simulator's evidence is in docs/tuning.md)
 * @param queueMetric {@code queue_metric}: the metric summed over its series; default
 *     {@code vllm:num_requests_waiting}
 * @param countSentSinceScrape {@code count_sent_since_scrape}: whether a cluster's depth also counts the requests this
 *     replica sent it since its latest scrape; default false
 * @param orderBy {@code order_by}: how candidates are ordered by load, {@code depth} (the default, the seed's order) or
 *     {@code expected_wait} (by the time to first token each would give the request; docs/tuning.md)
 * @param dnsRefresh {@code dns_refresh_secs}: how often a {@code metrics_dns} name is resolved again; default 30 s
 */
public record LoadSettings(
        Duration pollInterval,
        Duration window,
        String queueMetric,
        boolean countSentSinceScrape,
        LoadOrder orderBy,
        Duration dnsRefresh) {
    /** The default {@code dns_refresh_secs}. */
    public static final Duration DEFAULT_DNS_REFRESH = Duration.ofSeconds(30);

    /** The defaults. */
    public static LoadSettings defaults() {
        return new LoadSettings(Duration.ofSeconds(1), Duration.ofSeconds(2), "vllm:num_requests_waiting");
    }

    /** Settings that do not count requests sent since the latest scrape (the default). */
    public LoadSettings(Duration pollInterval, Duration window, String queueMetric) {
        this(pollInterval, window, queueMetric, false);
    }

    /** Settings that order candidates by depth (the default), with the default {@code dns_refresh_secs}. */
    public LoadSettings(Duration pollInterval, Duration window, String queueMetric, boolean countSentSinceScrape) {
        this(pollInterval, window, queueMetric, countSentSinceScrape, LoadOrder.DEPTH, DEFAULT_DNS_REFRESH);
    }

    public LoadSettings {
        requireNonNull(pollInterval, "pollInterval");
        requireNonNull(window, "window");
        requireNonNull(queueMetric, "queueMetric");
        requireNonNull(orderBy, "orderBy");
        requireNonNull(dnsRefresh, "dnsRefresh");
    }

    /** The rules selection reads the load signal by. */
    public LoadRules rules() {
        return new LoadRules(countSentSinceScrape, orderBy);
    }
}

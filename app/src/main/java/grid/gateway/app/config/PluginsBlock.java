package grid.gateway.app.config;

import static java.util.Objects.requireNonNullElse;

import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.select.LoadOrder;
import java.time.Duration;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Reads {@code plugins.grid_site_route}: its {@code load} block into {@link LoadSettings} and its
 * {@code prefix_affinity} block into {@link PrefixAffinitySettings} (docs/design.md §6, §7).
 *
 * <p>Stateless and thread-safe.
 */
final class PluginsBlock {
    private static final Pattern METRIC_NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");

    private PluginsBlock() {}

    /** The {@code plugins.grid_site_route} block of {@code root}. */
    static YamlBlock route(YamlBlock root) {
        YamlBlock plugins = root.block("plugins");
        plugins.only("grid_site_route");
        YamlBlock route = plugins.block("grid_site_route");
        route.only("load", "prefix_affinity");
        return route;
    }

    /** The settings in {@code route.load}, defaults filled in. */
    static LoadSettings load(YamlBlock route) {
        YamlBlock load = route.block("load");
        load.only(
                "poll_interval_ms",
                "window_secs",
                "queue_metric",
                "count_sent_since_scrape",
                "order_by",
                "dns_refresh_secs");
        LoadSettings defaults = LoadSettings.defaults();
        int before = load.problems().size();
        long pollMillis =
                load.integer("poll_interval_ms", defaults.pollInterval().toMillis(), LongRange.millis());
        long windowSecs = load.integer("window_secs", defaults.window().toSeconds(), LongRange.seconds());
        // A window shorter than the poll interval would often hold no sample, so clusters would flap to unmeasured.
        if (load.problems().size() == before && windowSecs * 1_000 < pollMillis) {
            load.problems()
                    .add(
                            load.path("window_secs"),
                            windowSecs,
                            "at least poll_interval_ms (" + pollMillis + " ms), so that every window holds a sample");
        }
        String metricExpected = "a Prometheus metric name";
        String metric = load.string("queue_metric", metricExpected).orElse(defaults.queueMetric());
        if (!METRIC_NAME.matcher(metric).matches()) {
            load.problems().add(load.path("queue_metric"), metric, metricExpected);
        }
        boolean countSent = load.bool("count_sent_since_scrape", defaults.countSentSinceScrape());
        String orderExpected = "depth or expected_wait";
        String orderBy =
                load.string("order_by", orderExpected).orElse(defaults.orderBy().label());
        Optional<LoadOrder> order = LoadOrder.find(orderBy);
        if (order.isEmpty()) {
            load.problems().add(load.path("order_by"), orderBy, orderExpected);
        }
        long dnsRefreshSecs =
                load.integer("dns_refresh_secs", defaults.dnsRefresh().toSeconds(), LongRange.seconds());
        return new LoadSettings(
                Duration.ofMillis(pollMillis),
                Duration.ofSeconds(windowSecs),
                metric,
                countSent,
                order.orElse(LoadOrder.DEPTH),
                Duration.ofSeconds(dnsRefreshSecs));
    }

    /**
     * The settings in {@code route.prefix_affinity}, defaults filled in. {@code capacity},
     * {@code prefill_tokens_per_second} and {@code queued_request_seconds} each take a number or {@code auto}; under
     * {@code auto} the seed's default is what a cluster uses until it is measured.
     */
    static PrefixAffinitySettings prefixAffinity(YamlBlock route) {
        YamlBlock block = route.block("prefix_affinity");
        block.only(
                "capacity",
                "ttl_secs",
                "prefill_tokens_per_second",
                "queued_request_seconds",
                "learn_from_usage",
                "sharing");
        PrefixAffinitySettings defaults = PrefixAffinitySettings.defaults();
        int capacity =
                (int) block.integerOrAuto("capacity", defaults.capacity(), LongRange.atMost(Integer.MAX_VALUE, ""));
        // Up to Long.MAX_VALUE here so that PrefixAffinitySettings states the clock's bound; beyond, the same words.
        LongRange ttlRange =
                new LongRange(1, Long.MAX_VALUE, "> 0", LongRange.seconds().above());
        long ttlSecs = block.integer("ttl_secs", defaults.ttl().toSeconds(), ttlRange);
        double prefill = block.positiveNumberOrAuto("prefill_tokens_per_second", defaults.prefillTokensPerSecond());
        double queued = block.positiveNumberOrAuto("queued_request_seconds", defaults.queuedRequestSeconds());
        PrefixAffinitySettings.Calibrated auto = new PrefixAffinitySettings.Calibrated(
                block.isAuto("capacity"),
                block.isAuto("prefill_tokens_per_second"),
                block.isAuto("queued_request_seconds"));
        boolean learn = block.bool("learn_from_usage", defaults.learnFromUsage());
        return settings(block, capacity, Duration.ofSeconds(ttlSecs), prefill, queued)
                .map(s -> s.with(auto, learn))
                .orElse(defaults);
    }

    /** The settings in {@code route.prefix_affinity.sharing}, defaults filled in. */
    static SharingSettings sharing(YamlBlock route, java.nio.file.Path configDirectory) {
        return SharingBlock.read(route.block("prefix_affinity"), configDirectory);
    }

    // The record's own checks stay the single source of its limits (a TTL that does not fit the monotonic clock in
    // nanoseconds, docs/design.md §6); its messages name the key, and the block's path is put in front.
    private static Optional<PrefixAffinitySettings> settings(
            YamlBlock block, int capacity, Duration ttl, double prefill, double queued) {
        try {
            return Optional.of(new PrefixAffinitySettings(capacity, ttl, prefill, queued));
        } catch (IllegalArgumentException e) {
            block.problems()
                    .addLine(block.path(requireNonNullElse(e.getMessage(), "invalid prefix_affinity settings")));
            return Optional.empty();
        }
    }
}

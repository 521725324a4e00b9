package grid.gateway.sim;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.LoadRules;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.select.LoadOrder;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The gateway configuration a run uses: the {@code prefix_affinity} block and the {@code load} block's poll interval
 * and window. The report's runs use {@link #defaults()}; the diagnosis varies them one at a time.
 *
 * <p>Thread-safe (immutable).
 *
 * @param name a label for reports
 * @param settings {@code plugins.grid_site_route.prefix_affinity}
 * @param pollSeconds {@code load.poll_interval_ms}, in seconds
 * @param window {@code load.window_secs}
 * @param countSentSinceScrape {@code load.count_sent_since_scrape}
 * @param orderBy {@code load.order_by}
 * @param sharedMemory replicas share one prefix memory, every confirmation and drop seen by all at once: the ideal
 *     that sharing confirmations between the replicas of a site (docs/prefix-sharing.md) can approach
 * @param streamLagSeconds replicas each keep their own memory and share confirmations and drops through a stream
 *     that delivers them this many seconds later (the Redis design of docs/prefix-sharing.md, {@link SharedStream}); negative: no stream
 * @param sharedBacklog with a stream, the replicas also publish their sends and add their peers' to their prefill
 *     backlogs ({@code sharing.share_backlog}; matters only with {@code load.order_by: expected_wait})
 * @param switchedOff causes of slow first tokens the simulation switches off around the router ({@link SimCause}); empty
 *     in every report run
 */
public record GatewayTuning(
        String name,
        PrefixAffinitySettings settings,
        double pollSeconds,
        Duration window,
        boolean countSentSinceScrape,
        LoadOrder orderBy,
        boolean sharedMemory,
        double streamLagSeconds,
        boolean sharedBacklog,
        Set<SimCause> switchedOff) {
    public GatewayTuning {
        switchedOff = Set.copyOf(switchedOff);
        requireNonNull(name, "name");
        requireNonNull(settings, "settings");
        requireNonNull(window, "window");
        requireNonNull(orderBy, "orderBy");
        if (!(pollSeconds > 0)) {
            throw new IllegalArgumentException("pollSeconds: " + pollSeconds + " (expected: > 0)");
        }
    }

    /** A tuning that counts only scraped depths, as the seed does. */
    public GatewayTuning(String name, PrefixAffinitySettings settings, double pollSeconds, Duration window) {
        this(name, settings, pollSeconds, window, false, LoadOrder.DEPTH, false, -1, false, Set.of());
    }

    /** A tuning whose replicas each remember only what they routed. */
    public GatewayTuning(
            String name,
            PrefixAffinitySettings settings,
            double pollSeconds,
            Duration window,
            boolean countSentSinceScrape) {
        this(name, settings, pollSeconds, window, countSentSinceScrape, LoadOrder.DEPTH, false, -1, false, Set.of());
    }

    /** This tuning with the replicas sharing one prefix memory. */
    public GatewayTuning withSharedMemory() {
        return new GatewayTuning(
                name + ", shared memory",
                settings,
                pollSeconds,
                window,
                countSentSinceScrape,
                orderBy,
                true,
                -1,
                false,
                switchedOff);
    }

    /** This tuning with the replicas sharing through a stream that delivers {@code lagSeconds} later. */
    public GatewayTuning withStreamSharing(double lagSeconds) {
        return new GatewayTuning(
                name + ", shared through a stream",
                settings,
                pollSeconds,
                window,
                countSentSinceScrape,
                orderBy,
                false,
                lagSeconds,
                sharedBacklog,
                switchedOff);
    }

    /** This tuning with its stream also carrying the replicas' sends to their peers' prefill backlogs. */
    public GatewayTuning withSharedBacklog() {
        if (!streamSharing()) {
            throw new IllegalStateException("a shared backlog travels through the stream: no stream");
        }
        return new GatewayTuning(
                name + " and backlog",
                settings,
                pollSeconds,
                window,
                countSentSinceScrape,
                orderBy,
                false,
                streamLagSeconds,
                true,
                switchedOff);
    }

    /** This tuning with candidates ordered by {@code order} ({@code load.order_by}). */
    public GatewayTuning withOrderBy(LoadOrder order) {
        return new GatewayTuning(
                order == orderBy ? name : name + ", order by " + order.label(),
                settings,
                pollSeconds,
                window,
                countSentSinceScrape,
                order,
                sharedMemory,
                streamLagSeconds,
                sharedBacklog,
                switchedOff);
    }

    /** This tuning with {@code causes} switched off in the simulation ({@link SimCause}). */
    public GatewayTuning withSwitchedOff(Set<SimCause> causes) {
        Set<SimCause> off = causes.isEmpty() ? EnumSet.noneOf(SimCause.class) : EnumSet.copyOf(causes);
        String label = off.isEmpty()
                ? name
                : name + ", without " + off.stream().map(SimCause::label).collect(Collectors.joining(", "));
        return new GatewayTuning(
                label,
                settings,
                pollSeconds,
                window,
                countSentSinceScrape,
                orderBy,
                sharedMemory,
                streamLagSeconds,
                sharedBacklog,
                off);
    }

    /** Whether the simulation switches {@code cause} off. */
    public boolean isOff(SimCause cause) {
        return switchedOff.contains(cause);
    }

    /** The {@code load} block's selection rules. */
    public LoadRules loadRules() {
        return new LoadRules(countSentSinceScrape, orderBy);
    }

    /** Whether the replicas share through a stream. */
    public boolean streamSharing() {
        return streamLagSeconds >= 0;
    }

    /** The gateway's defaults: no {@code prefix_affinity} block, poll every second, 2 s window (docs/design.md §7 said 10). */
    public static GatewayTuning defaults() {
        return new GatewayTuning("defaults", PrefixAffinitySettings.defaults(), 1.0, Duration.ofSeconds(2));
    }

    /**
     * The labels of the recommended settings, each run alone over the defaults ({@link #alone}). The three
     * {@code auto} values are one setting: each prices one side of the load gate or of the expected wait in the
     * engine's own units, and one measured beside the others configured mixes units (a measured queued-request cost
     * against the configured prefill rate left the Mooncake trace's slow grid 16 points of hit rate below the defaults
     * at 110%).
     */
    public static final List<String> SETTINGS =
            List.of("count_sent_since_scrape", "order_by_expected_wait", "auto", "learn_from_usage");

    /**
     * The seed's defaults with one recommended setting, named by its label in {@link #SETTINGS}: what that setting
     * alone does (the aim "no single recommended setting alone is worse than the defaults", {@link Scoreboard}).
     */
    public static GatewayTuning alone(String setting) {
        PrefixAffinitySettings defaults = PrefixAffinitySettings.defaults();
        PrefixAffinitySettings settings = switch (setting) {
            case "auto" -> defaults.with(PrefixAffinitySettings.Calibrated.ALL, false);
            case "learn_from_usage" -> defaults.with(PrefixAffinitySettings.Calibrated.NONE, true);
            case "count_sent_since_scrape", "order_by_expected_wait" -> defaults;
            default ->
                throw new IllegalArgumentException(
                        "unknown setting " + setting + " (expected one of " + SETTINGS + ")");
        };
        return new GatewayTuning(
                "defaults + " + setting,
                settings,
                1.0,
                Duration.ofSeconds(2),
                setting.equals("count_sent_since_scrape"),
                setting.equals("order_by_expected_wait") ? LoadOrder.EXPECTED_WAIT : LoadOrder.DEPTH,
                false,
                -1,
                false,
                Set.of());
    }

    /**
     * The recommended configuration (etc/gateway-recommended.yaml): every {@code auto}, usage learning, a fresh
     * load signal (scrape every {@code pollSeconds} over a window of {@code window}), sent-since-scrape counts and
     * {@code load.order_by: expected_wait} (docs/routing-studies.md: a lower p90 than {@code depth} on 14 of 15 cells at
     * 80%; {@link #withOrderBy} with {@code DEPTH} gives the same with the default order).
     */
    public static GatewayTuning recommended(double pollSeconds, Duration window) {
        PrefixAffinitySettings settings =
                PrefixAffinitySettings.defaults().with(PrefixAffinitySettings.Calibrated.ALL, true);
        return new GatewayTuning(
                "recommended",
                settings,
                pollSeconds,
                window,
                true,
                LoadOrder.EXPECTED_WAIT,
                false,
                -1,
                false,
                Set.of());
    }
}

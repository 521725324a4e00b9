package grid.gateway.sim;

import grid.gateway.routing.select.LoadOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The command line of {@link RoutingSimMain} (its javadoc lists the options), parsed strictly: an unknown option or
 * a missing value fails.
 *
 * <p>Not thread-safe; filled once by its constructor.
 */
final class SimOptions {
    private Path out = Path.of("docs");
    private double scale = 1;
    private double traceScale = 1;
    private int traceCacheTokens = SimGrid.TRACE_CACHE_TOKENS;
    private long seed = 7;
    private long draw;
    private Optional<Path> trace = Optional.empty();
    private String traceName = "mooncake";
    private List<String> workloads = List.of();
    private List<String> grids = List.of("all");
    private double[] loads = Study.LOADS;
    private List<Integer> replicas = List.of(1, 3, 6);
    /** With it, the "shared" runs share through a stream with this lag (docs/prefix-sharing.md) instead of one memory. */
    private OptionalLong sharingLagMs = OptionalLong.empty();
    /** With the stream, the "shared" runs also share the replicas' sends (their prefill backlogs). */
    private boolean shareBacklog;

    private double failures = 0.02;
    private long pollMs = 1000;
    private long windowSecs = 2;
    private List<String> configs = List.of("defaults", "recommended");
    private Optional<LoadOrder> orderBy = Optional.empty();
    private boolean diagnosis;
    private boolean decompose;
    private boolean tracePeakLoad = true;
    /**
     * Causes the simulation switches off around the router in every gateway-fed run of the report: what a change to
     * one of the product's rules would buy, counted on the whole scoreboard (never the product's behaviour).
     */
    private Set<SimCause> without = EnumSet.noneOf(SimCause.class);

    SimOptions(String[] args) {
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--diagnosis")) {
                diagnosis = true;
            } else if (args[i].equals("--decompose")) {
                decompose = true;
            } else if (i + 1 < args.length) {
                set(args[i], args[++i]);
            } else {
                throw new IllegalArgumentException("option " + args[i] + " needs a value");
            }
        }
        check();
    }

    private void set(String option, String value) {
        switch (option) {
            case "--out" -> out = Path.of(value);
            case "--scale" -> scale = Double.parseDouble(value);
            case "--seed" -> seed = Long.parseLong(value);
            case "--draw" -> draw = Long.parseLong(value);
            case "--trace" -> trace = Optional.of(Path.of(value));
            case "--trace-name" -> traceName = value;
            case "--trace-scale" -> traceScale = Double.parseDouble(value);
            case "--trace-cache-tokens" -> traceCacheTokens = Integer.parseInt(value);
            case "--trace-load" ->
                tracePeakLoad = switch (value) {
                    case "mean" -> false;
                    case "peak" -> true;
                    default -> throw new IllegalArgumentException("--trace-load: mean or peak, not " + value);
                };
            case "--workload" -> workloads = list(value);
            case "--grid" -> grids = list(value);
            case "--loads" ->
                loads = list(value).stream().mapToDouble(Double::parseDouble).toArray();
            case "--sharing-lag-ms" -> sharingLagMs = OptionalLong.of(Long.parseLong(value));
            case "--share-backlog" ->
                shareBacklog = switch (value) {
                    case "on" -> true;
                    case "off" -> false;
                    default -> throw new IllegalArgumentException("--share-backlog: on or off, not " + value);
                };
            case "--replicas" ->
                replicas = list(value).stream().map(Integer::valueOf).toList();
            case "--failures" -> failures = Double.parseDouble(value);
            case "--poll-ms" -> pollMs = Long.parseLong(value);
            case "--window-secs" -> windowSecs = Long.parseLong(value);
            case "--config" -> configs = list(value);
            case "--order-by" -> orderBy = Optional.of(LoadOrder.of(value));
            case "--without" -> {
                without = EnumSet.noneOf(SimCause.class);
                list(value).stream().map(SimCause::ofOption).forEach(without::add);
            }
            default -> throw new IllegalArgumentException("unknown option " + option);
        }
    }

    private static List<String> list(String value) {
        return Arrays.stream(value.split(","))
                .map(String::trim)
                .filter(v -> !v.isEmpty())
                .toList();
    }

    Path out() {
        return out;
    }

    double scale() {
        return scale;
    }

    long seed() {
        return seed;
    }

    /** The offset of every run's random seed ({@link Study#draw}); 0 for the report's own draws. */
    long draw() {
        return draw;
    }

    Optional<Path> trace() {
        return trace;
    }

    String traceName() {
        return traceName;
    }

    double traceScale() {
        return traceScale;
    }

    int traceCacheTokens() {
        return traceCacheTokens;
    }

    double failures() {
        return failures;
    }

    boolean tracePeakLoad() {
        return tracePeakLoad;
    }

    boolean diagnosis() {
        return diagnosis;
    }

    /** Whether to run the p90 decomposition ({@link Decomposition}) instead of the report. */
    boolean decompose() {
        return decompose;
    }

    double[] loads() {
        return loads.clone();
    }

    List<Integer> replicas() {
        return replicas.contains(1) ? replicas : concat(1, replicas);
    }

    private static List<Integer> concat(int first, List<Integer> rest) {
        List<Integer> out = new ArrayList<>(List.of(first));
        out.addAll(rest);
        return out;
    }

    /** The workloads to run: the named ones, or every synthetic one and the trace when given. */
    List<String> workloads() {
        if (!workloads.isEmpty()) {
            return workloads;
        }
        List<String> all = new ArrayList<>(
                Arrays.stream(Workload.values()).map(Workload::label).toList());
        trace.ifPresent(t -> all.add(traceName));
        return all;
    }

    /** The grids' names. */
    List<String> grids() {
        return grids.contains("all") ? SimGrid.NAMES : grids;
    }

    /** The gateway's configuration: defaults, with the load block's poll interval and window from the options. */
    GatewayTuning tuning() {
        GatewayTuning defaults = GatewayTuning.defaults();
        boolean isDefault = pollMs == 1000 && windowSecs == 2;
        return new GatewayTuning(
                        isDefault ? defaults.name() : "poll " + pollMs + " ms, window " + windowSecs + " s",
                        defaults.settings(),
                        pollMs / 1000.0,
                        Duration.ofSeconds(windowSecs))
                .withSwitchedOff(without);
    }

    /** The causes switched off in every gateway-fed run ({@code --without}); empty for the product's behaviour. */
    Set<SimCause> without() {
        return Set.copyOf(without);
    }

    /** Whether the seed's defaults are run (every policy). */
    boolean runsDefaults() {
        return configs.contains("defaults");
    }

    /**
     * Whether each recommended setting is also run alone over the defaults ({@code grid_site_route}, one replica; the
     * scoreboard's "never worse than the defaults" aim).
     */
    boolean runsSettingsAlone() {
        return configs.contains("alone");
    }

    /** {@code grid_site_route} with {@code setting} alone over the defaults ({@link GatewayTuning#alone}). */
    Study.Selection alone(String setting) {
        return new Study.Selection(
                List.of(PolicyKind.GRID_SITE_ROUTE),
                loads,
                GatewayTuning.alone(setting).withSwitchedOff(without),
                1);
    }

    /** Whether the recommended configuration is run ({@code grid_site_route} and least-queued on its signal). */
    boolean runsRecommended() {
        return configs.contains("recommended");
    }

    /**
     * {@code grid_site_route} and least-queued under the recommended configuration
     * ({@link GatewayTuning#recommended}: {@code auto}, usage learning, sent-since-scrape, a 1 s poll over a 2 s
     * window); {@code grid_site_route} only with more than one replica.
     */
    Study.Selection recommendedShared(int replicaCount) {
        Study.Selection own = recommended(replicaCount);
        GatewayTuning shared = sharingLagMs.isPresent()
                ? own.tuning().withStreamSharing(sharingLagMs.getAsLong() / 1000.0)
                : own.tuning().withSharedMemory();
        if (shareBacklog) {
            shared = shared.withSharedBacklog();
        }
        return new Study.Selection(own.policies(), loads, shared, replicaCount);
    }

    /** What the report's {@code +rec} runs are: the recommended configuration and its {@code load.order_by}. */
    String recommendedAs() {
        return "the recommended configuration, load.order_by: "
                + recommended(1).tuning().orderBy().label()
                + Report.switchedOff(without);
    }

    /** How the report's "shared" replica runs share (after "the same replicas"). */
    String sharedAs() {
        if (sharingLagMs.isEmpty()) {
            return Report.ONE_MEMORY;
        }
        return "sharing through a stream that delivers confirmations and drops "
                + sharingLagMs.getAsLong()
                + " ms later (docs/prefix-sharing.md)"
                + (shareBacklog ? ", and each replica's sends to its peers' prefill backlogs (share_backlog)" : "");
    }

    /** Validates what depends on several options, once all are read. */
    private void check() {
        if (shareBacklog && sharingLagMs.isEmpty()) {
            throw new IllegalArgumentException(
                    "--share-backlog on needs --sharing-lag-ms (the backlog travels in the stream)");
        }
    }

    Study.Selection recommended(int replicaCount) {
        List<PolicyKind> policies = replicaCount == 1
                ? List.of(PolicyKind.GRID_SITE_ROUTE, PolicyKind.LEAST_QUEUED)
                : List.of(PolicyKind.GRID_SITE_ROUTE);
        GatewayTuning tuning = GatewayTuning.recommended(1.0, Duration.ofSeconds(2));
        return new Study.Selection(
                policies,
                loads,
                orderBy.map(tuning::withOrderBy).orElse(tuning).withSwitchedOff(without),
                replicaCount);
    }

    /**
     * Every policy with one replica; only {@code grid_site_route} with more (least-queued's replicas would share one
     * signal, and the other policies have no gateway state).
     */
    Study.Selection selection(int replicaCount) {
        List<PolicyKind> policies =
                replicaCount == 1 ? List.of(PolicyKind.values()) : List.of(PolicyKind.GRID_SITE_ROUTE);
        return new Study.Selection(policies, loads, tuning(), replicaCount);
    }
}

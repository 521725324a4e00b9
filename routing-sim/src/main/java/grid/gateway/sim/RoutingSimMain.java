package grid.gateway.sim;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the routing-quality comparison and writes the report: {@code DIR/routing-quality.md} and one
 * {@code DIR/routing-quality-<grid>.svg} a grid (default {@code docs}), and prints the tables.
 *
 * <pre>
 *   --out DIR            where to write (docs)
 *   --scale X            synthetic trace size (1)
 *   --seed S             (7)
 *   --draw N             offset every run's random seed by N, the traces and error answers kept: the same runs
 *                        drawn again, to see how far two runs of one configuration differ (0)
 *   --trace FILE         also replay FILE, a trace in the Mooncake format
 *   --trace-name NAME    its workload label (mooncake)
 *   --trace-scale X      the share of its requests kept, from the start (1; the Mooncake trace's reuse builds up
 *                        over its first minutes, so a cut trace shows little of it)
 *   --trace-cache-tokens N  every engine's prefix cache when the trace runs (2,000,000)
 *   --trace-load peak|mean  the trace's offered load against the perfect-reuse capacity at its busiest tenth of
 *                        time (peak, the default) or on average (mean, as for the steady synthetic workloads);
 *                        the Mooncake trace's first tenth carries 2.1× its mean unshared work, so at "80%" of the
 *                        mean its first half overloads every policy, the oracle included
 *   --workload A,B       workload labels to run (all synthetic ones, and the trace when given)
 *   --grid G             slow, fast, mixed, vllm (engines that are not the router's twin), a comma list, or all
 *                        (all)
 *   --loads 0.5,0.8      offered loads (0.5,0.8,0.95,1.1)
 *   --replicas 1,3,6     gateway replica counts; counts above 1 run grid_site_route only (1,3,6)
 *   --sharing-lag-ms N   the "shared" runs share through a stream delivering N ms later (docs/prefix-sharing.md's Redis
 *                        design) instead of one ideal memory
 *   --share-backlog on   with --sharing-lag-ms, the stream also carries each replica's sends to its peers' prefill
 *                        backlogs (sharing.share_backlog; load.order_by: expected_wait) (off)
 *   --failures X         share of attempts answered with errors, half 429 and half 503 (0.02)
 *   --poll-ms N          the gateway's load.poll_interval_ms, for both gateway-fed policies (1000)
 *   --window-secs N      the gateway's load.window_secs (2)
 *   --config C,D         gateway configurations: defaults (every policy), recommended (grid_site_route and
 *                        least-queued on its signal, labelled "+rec"), alone (each recommended setting alone over
 *                        the defaults, grid_site_route with one replica, labelled "+<setting>")
 *                        (defaults,recommended)
 *   --order-by O         the recommended configuration's load.order_by: depth (recommended before) or
 *                        expected_wait (expected_wait)
 *   --diagnosis          also run the first report's diagnosis (shared-chat, slow grid, four configurations)
 *   --without C,D        switch these causes off in the simulation around the router in every gateway-fed run
 *                        (SimCause: exploration, drop-on-error, drop-on-429, miss-load, miss-placement,
 *                        unknown-slots): what a change to one of the product's rules, or a signal vLLM does not
 *                        export, would buy, on the whole scoreboard; the report says so at its top
 *   --decompose          instead of the report, decompose grid_site_route's p90 under the recommended configuration
 *                        (with --order-by) on the chosen workloads, grids and loads: each cause switched off in the
 *                        simulation (SimCause), without error answers, all off, the oracle; writes DIR/decomposition.md
 * </pre>
 *
 * <p>Not thread-safe; a command-line entry point.
 */
public final class RoutingSimMain {
    private RoutingSimMain() {}

    /** Entry point. */
    public static void main(String[] args) {
        SimOptions options;
        try {
            options = new SimOptions(args);
        } catch (IllegalArgumentException e) {
            // A mistyped option is the operator's, not a bug: say which, without a stack trace.
            System.err.println("routing-sim: " + e.getMessage() + " (bin/routing-sim --help lists the options)");
            System.exit(2);
            return;
        }
        Study study = study(options, FailedAnswers.of(options.failures(), options.seed()));
        List<SimGrid> grids = options.grids().stream().map(SimGrid::named).toList();
        if (options.decompose()) {
            decompose(options, study, grids);
            return;
        }
        List<RunResult> results = runs(options, study, grids);
        List<Diagnosis.Row> diagnosis =
                options.diagnosis() ? Diagnosis.run(study, SimGrid.slow(), System.out::println) : List.of();
        String report = Report.markdown(
                study,
                grids,
                results,
                diagnosis,
                new Report.Labels(options.recommendedAs(), options.sharedAs(), options.without()));
        try {
            Files.createDirectories(options.out());
            Files.writeString(options.out().resolve("routing-quality.md"), report);
            for (SimGrid grid : grids) {
                Files.writeString(
                        options.out().resolve("routing-quality-" + grid.name() + ".svg"),
                        SvgPlot.render(results, grid.name()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        System.out.println(report);
    }

    /** Every run of the report: each workload, grid and replica count under each configuration asked for. */
    private static List<RunResult> runs(SimOptions options, Study study, List<SimGrid> grids) {
        List<RunResult> results = new ArrayList<>();
        for (String workload : options.workloads()) {
            for (SimGrid grid : grids) {
                for (int replicas : options.replicas()) {
                    if (options.runsDefaults()) {
                        results.addAll(study.run(workload, grid, options.selection(replicas), System.out::println));
                    }
                    if (options.runsRecommended()) {
                        study.run(workload, grid, options.recommended(replicas), System.out::println).stream()
                                .map(r -> r.named(r.policy() + Report.RECOMMENDED))
                                .forEach(results::add);
                        if (replicas > 1) {
                            study.run(workload, grid, options.recommendedShared(replicas), System.out::println).stream()
                                    .map(r -> r.named(r.policy() + Report.RECOMMENDED + Report.SHARED))
                                    .forEach(results::add);
                        }
                    }
                    if (options.runsSettingsAlone() && replicas == 1) {
                        for (String setting : GatewayTuning.SETTINGS) {
                            study.run(workload, grid, options.alone(setting), System.out::println).stream()
                                    .map(r -> r.named(Report.alone(setting)))
                                    .forEach(results::add);
                        }
                    }
                }
            }
        }
        return results;
    }

    private static Study study(SimOptions options, FailedAnswers failures) {
        Study study = new Study(options.seed(), options.scale(), failures);
        study.draw(options.draw());
        study.traceCacheTokens(options.traceCacheTokens());
        study.tracePeakLoad(options.tracePeakLoad());
        options.trace()
                .ifPresent(file -> study.add(MooncakeTrace.read(file, options.traceName(), options.traceScale())));
        return study;
    }

    private static void decompose(SimOptions options, Study study, List<SimGrid> grids) {
        var studies = new Decomposition.Studies(study, study(options, FailedAnswers.none()));
        GatewayTuning tuning = options.recommended(1).tuning();
        List<Decomposition.Row> rows = new ArrayList<>();
        for (String workload : options.workloads()) {
            for (SimGrid grid : grids) {
                var cell = new Decomposition.Cell(workload, grid, options.loads());
                rows.addAll(Decomposition.run(studies, cell, tuning, System.out::println));
            }
        }
        String table = Decomposition.markdown(rows, tuning.name());
        write(options.out().resolve("decomposition.md"), options.out(), table);
        System.out.println(table);
    }

    private static void write(Path file, Path dir, String text) {
        try {
            Files.createDirectories(dir);
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

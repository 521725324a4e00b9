package grid.gateway.sim;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the routing-quality comparison and writes the report: {@code bin/routing-sim [--out DIR] [--scale X]
 * [--seed S]} writes {@code DIR/routing-quality.md} and {@code DIR/routing-quality.svg} (default {@code docs}) and
 * prints the tables.
 *
 * <p>Not thread-safe; a command-line entry point.
 */
public final class RoutingSimMain {
    private RoutingSimMain() {}

    /** Entry point. */
    public static void main(String[] args) {
        Path out = Path.of("docs");
        double scale = 1;
        long seed = 7;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--out" -> out = Path.of(args[i + 1]);
                case "--scale" -> scale = Double.parseDouble(args[i + 1]);
                case "--seed" -> seed = Long.parseLong(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        List<RunResult> results = new ArrayList<>();
        Study study = new Study(SimGrid.standard(), seed, scale);
        for (Workload workload : Workload.values()) {
            results.addAll(study.workload(workload, System.out::println));
        }
        List<Diagnosis.Row> diagnosis = Diagnosis.run(study, System.out::println);
        String report = Report.markdown(study, results, diagnosis);
        try {
            Files.createDirectories(out);
            Files.writeString(out.resolve("routing-quality.md"), report);
            Files.writeString(out.resolve("routing-quality.svg"), SvgPlot.render(results));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        System.out.println(report);
    }
}

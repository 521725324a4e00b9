package grid.gateway.deploy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * {@code bin/render-chart VALUES [--check-config]}: prints the chart's manifests rendered with a values file, or,
 * with {@code --check-config}, the rendered ConfigMap's config file followed by the gateway's {@code --check-config}
 * output for it (exit 0 when valid, 2 with each problem otherwise). Uses the same code as the tests.
 */
public final class RenderChart {
    private RenderChart() {}

    /**
     * Runs the command.
     *
     * @param args the values file, then optionally {@code --check-config}
     */
    public static void main(String[] args) throws Exception {
        boolean check = args.length == 2 && args[1].equals("--check-config");
        if (args.length < 1 || args.length > 2 || (args.length == 2 && !check)) {
            System.err.println("usage: bin/render-chart VALUES.yaml [--check-config]");
            System.exit(2);
        }
        Path values = Path.of(args[0]).toAbsolutePath();
        Rendered rendered = Rendered.parse("cli", Chart.repository().template(values));
        if (!check) {
            System.out.print(rendered.text());
            return;
        }
        Path directory = Files.createTempDirectory("render-chart");
        CheckableConfig.Result result;
        try {
            result = CheckableConfig.check(rendered, directory);
        } finally {
            // The directory may hold a copy of the tag key.
            try (Stream<Path> files = Files.walk(directory)) {
                for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(file);
                }
            }
        }
        System.out.println(
                "# ConfigMap " + Rendered.at(rendered.configMap(), "metadata", "name") + ", data.config.yaml:");
        System.out.print(rendered.configYaml());
        System.out.println("# grid-gateway --check-config config.yaml (exit " + result.exitCode() + "):");
        System.out.print(result.out());
        System.err.print(result.err());
        System.exit(result.exitCode());
    }
}

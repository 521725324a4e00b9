package grid.gateway.conformance.quality;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Measures the light-load sequential multi-turn replay ({@link SequentialReplay}) under the seed's defaults, the
 * recommended settings and each recommended setting alone, against the oracle that pins each conversation to one
 * engine: hit rate ÷ the oracle's and {@code load} outcomes, the mean over {@code trials} gateways with fresh engines,
 * each seeded differently. Prints a Markdown table. Not a test: a measurement, run by hand (docs/tuning.md gives the
 * command):
 *
 * <pre>
 *   mvn -q -o -pl conformance -am test-compile
 *   mvn -q -o -pl conformance dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt -Dmdep.includeScope=test
 *   java -cp conformance/target/test-classes:conformance/target/classes:$(cat /tmp/cp.txt) \
 *       grid.gateway.conformance.quality.ReplayTable [conversations] [trials]
 * </pre>
 */
public final class ReplayTable {
    private ReplayTable() {}

    /** The configurations measured: a name, the {@code load} entries and the {@code prefix_affinity} entries. */
    static Map<String, String[]> configurations() {
        Map<String, String[]> configs = new LinkedHashMap<>();
        configs.put("seed's defaults", new String[] {"", ""});
        configs.put("recommended (etc/gateway-recommended.yaml)", new String[] {
            "count_sent_since_scrape: true, order_by: expected_wait",
            "capacity: auto, prefill_tokens_per_second: auto, queued_request_seconds: auto, learn_from_usage: true"
        });
        configs.put("defaults + count_sent_since_scrape", new String[] {"count_sent_since_scrape: true", ""});
        configs.put("defaults + order_by: expected_wait", new String[] {"order_by: expected_wait", ""});
        configs.put(
                "defaults + the three auto",
                new String[] {"", "capacity: auto, prefill_tokens_per_second: auto, queued_request_seconds: auto"});
        configs.put("defaults + learn_from_usage", new String[] {"", "learn_from_usage: true"});
        return configs;
    }

    /** Prints the table. */
    public static void main(String[] args) throws IOException {
        int conversations = args.length > 0 ? Integer.parseInt(args[0]) : 96;
        int trials = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        SequentialReplay replay = new SequentialReplay(conversations, settings -> settings);
        double oracle = replay.oracle().hitRate();
        System.out.printf(
                Locale.ROOT,
                "oracle hit rate %.3f (%d conversations x %d turns)%n",
                oracle,
                conversations,
                SequentialReplay.TURNS);
        System.out.println("| gateway config | hit rate ÷ oracle's | `load` outcomes |");
        System.out.println("|---|---:|---:|");
        for (Map.Entry<String, String[]> config : configurations().entrySet()) {
            double hit = 0;
            double load = 0;
            for (int trial = 0; trial < trials; trial++) {
                Path dir = Files.createTempDirectory("replay");
                SequentialReplay.Result result =
                        replay.throughGateway(dir, config.getValue()[0], config.getValue()[1], trial + 1);
                hit += result.hitRate();
                if (Boolean.getBoolean("replay.verbose")) {
                    System.out.printf(
                            Locale.ROOT, "  %s seed %d: %.4f%n", config.getKey(), trial + 1, result.hitRate());
                }
                load += result.outcome("load");
            }
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %.2f | %.0f of %d |%n",
                    config.getKey(),
                    hit / trials / oracle,
                    load / trials,
                    conversations * SequentialReplay.TURNS);
        }
    }
}

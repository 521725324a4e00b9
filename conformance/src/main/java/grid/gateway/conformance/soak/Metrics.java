package grid.gateway.conformance.soak;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads samples from the gateway's Prometheus text: enough for the soak's gauges and counters.
 *
 * <p>Stateless and thread-safe.
 */
final class Metrics {
    private Metrics() {}

    /** The sum of every sample of {@code name} (any labels); NaN when there is none. */
    static double value(String text, String name) {
        double sum = 0;
        boolean found = false;
        for (String line : text.split("\n")) {
            if (line.startsWith(name + "{") || line.startsWith(name + " ")) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                found = true;
            }
        }
        return found ? sum : Double.NaN;
    }

    /** The samples of {@code name} summed by the value of {@code label}. */
    static Map<String, Double> sumBy(String text, String name, String label) {
        Pattern value = Pattern.compile(label + "=\"([^\"]*)\"");
        Map<String, Double> sums = new TreeMap<>();
        for (String line : text.split("\n")) {
            if (line.startsWith(name + "{")) {
                Matcher m = value.matcher(line);
                if (m.find()) {
                    sums.merge(m.group(1), Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)), Double::sum);
                }
            }
        }
        return sums;
    }
}

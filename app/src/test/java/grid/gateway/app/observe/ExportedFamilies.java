package grid.gateway.app.observe;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Test fixture: the gateway's own metric families in a Prometheus text scrape ({@code grid_*}, by their
 * {@code # TYPE} lines), and the names of their samples ({@code _bucket}, {@code _count}, {@code _sum} of a
 * histogram included).
 *
 * @param types family name to Prometheus type ({@code counter}, {@code gauge}, {@code histogram})
 * @param sampleNames every {@code grid_*} sample name in the scrape
 * @param scrape the parsed samples
 */
record ExportedFamilies(Map<String, String> types, Set<String> sampleNames, Scrape scrape) {
    static final String PREFIX = "grid_";

    static ExportedFamilies of(String text) {
        Map<String, String> types = new TreeMap<>();
        for (String line : text.split("\n")) {
            String[] words = line.strip().split("\\s+");
            if (words.length == 4 && words[0].equals("#") && words[1].equals("TYPE") && words[2].startsWith(PREFIX)) {
                types.put(words[2], words[3]);
            }
        }
        Scrape scrape = Scrape.parse(text);
        Set<String> samples = scrape.samples().stream()
                .map(Scrape.Sample::name)
                .filter(n -> n.startsWith(PREFIX))
                .collect(Collectors.toCollection(TreeSet::new));
        return new ExportedFamilies(Map.copyOf(types), Set.copyOf(samples), scrape);
    }

    /** The family a sample name belongs to, or the name itself when no family has it. */
    String familyOf(String sampleName) {
        if (types.containsKey(sampleName)) {
            return sampleName;
        }
        for (String suffix : new String[] {"_bucket", "_count", "_sum"}) {
            if (sampleName.endsWith(suffix)) {
                String family = sampleName.substring(0, sampleName.length() - suffix.length());
                if ("histogram".equals(types.get(family))) {
                    return family;
                }
            }
        }
        return sampleName;
    }

    /** Label names of a family's samples, without Helidon's {@code scope} and the histogram's {@code le}. */
    Set<String> labelNames(String family) {
        return scrape.samples().stream()
                .filter(s -> familyOf(s.name()).equals(family))
                .flatMap(s -> s.labels().keySet().stream())
                .filter(l -> !l.equals("scope") && !l.equals("le"))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** The values a label takes in a family's samples. */
    Set<String> labelValues(String family, String label) {
        return scrape.samples().stream()
                .filter(s -> familyOf(s.name()).equals(family))
                .map(s -> s.labels().get(label))
                .filter(v -> v != null)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** Families keyed by name, for messages. */
    Map<String, String> sorted() {
        return new LinkedHashMap<>(new TreeMap<>(types));
    }
}

package grid.gateway.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The chart rendered once per test JVM with each values file under {@code ci/}, each also written to
 * {@code target/rendered/<name>.yaml} for the schema check and for people to read. Immutable once loaded (the
 * holder-class idiom: the renders happen when a test first asks for them).
 */
final class CiRenders {
    private static final Map<String, Rendered> RENDERS = renderAll();

    private CiRenders() {}

    /** The render with {@code ci/<name>-values.yaml}. */
    static Rendered of(String name) {
        Rendered rendered = RENDERS.get(name);
        if (rendered == null) {
            throw new IllegalArgumentException("no ci/" + name + "-values.yaml; have " + RENDERS.keySet());
        }
        return rendered;
    }

    /** Every render, in values file name order. */
    static Collection<Rendered> all() {
        return RENDERS.values();
    }

    /** The manifest file written for {@code rendered}. */
    static Path file(Rendered rendered) {
        return DeployPaths.rendered().resolve(rendered.name() + ".yaml");
    }

    /** The name of a values file without {@code -values.yaml}. */
    static String name(Path values) {
        String file = values.getFileName().toString();
        return file.substring(0, file.length() - "-values.yaml".length());
    }

    private static Map<String, Rendered> renderAll() {
        Chart chart = Chart.repository();
        Map<String, Rendered> renders = new LinkedHashMap<>();
        try {
            Files.createDirectories(DeployPaths.rendered());
            for (Path values : DeployPaths.ciValues()) {
                Rendered rendered = Rendered.parse(name(values), chart.template(values));
                Files.writeString(file(rendered), rendered.text());
                renders.put(rendered.name(), rendered);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Collections.unmodifiableMap(renders);
    }
}

package grid.gateway.deploy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The Helm chart, driven by real Helm v3 through helm-java (JNI, offline): {@code helm lint --strict} and
 * {@code helm template}. Not thread-safe; tests call it from one thread.
 */
final class Chart {
    /** Release name of every render. */
    static final String RELEASE = "grid-gateway";
    /** Namespace of every render. */
    static final String NAMESPACE = "inference";
    /**
     * Kubernetes version of every render: the chart's {@code kubeVersion} floor, and the version whose schemas
     * {@code validate-manifests.mjs} applies (Helm's offline default, 1.20, is below the floor).
     */
    static final String KUBE_VERSION = "1.27.0";

    private final Path directory;

    Chart(Path directory) {
        this.directory = directory;
    }

    /** The chart in this repository. */
    static Chart repository() {
        return new Chart(DeployPaths.chart());
    }

    /** {@code helm lint --strict} with the chart's own values. */
    LintResult lint() {
        return new Helm(directory).lint().strict().call();
    }

    /**
     * {@code helm lint --strict} as if {@code values} were given with {@code -f}: helm-java's lint takes no values
     * file, so a copy of the chart under {@code scratch} gets the chart's values merged with {@code values}.
     */
    LintResult lint(Path values, Path scratch) {
        Path copy = copyTo(scratch);
        Map<String, Object> merged = Values.merge(Values.read(directory.resolve("values.yaml")), Values.read(values));
        Values.write(merged, copy.resolve("values.yaml"));
        return new Chart(copy).lint();
    }

    /** {@code helm template} with {@code values}; Helm's error becomes an {@link IllegalStateException}. */
    String template(Path values) {
        return template(values, Map.of());
    }

    /** {@code helm template} with {@code values} and {@code --set key=value} for each entry of {@code sets}. */
    String template(Path values, Map<String, Object> sets) {
        TemplateCommand command = new Helm(directory)
                .template()
                .withName(RELEASE)
                .withNamespace(NAMESPACE)
                .withKubeVersion(KUBE_VERSION)
                .withValuesFile(values);
        sets.forEach(command::set);
        return command.call();
    }

    /** A copy of the chart's files in {@code target}. */
    Path copyTo(Path target) {
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path file : files.toList()) {
                Path to = target.resolve(directory.relativize(file).toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(file, to);
                }
            }
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

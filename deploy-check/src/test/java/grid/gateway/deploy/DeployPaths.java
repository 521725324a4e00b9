package grid.gateway.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Where the chart, the Dockerfile and the build's outputs are. Surefire passes the locations as system properties
 * (see this module's pom); the fallbacks hold when the working directory is the module's.
 */
final class DeployPaths {
    private DeployPaths() {}

    /** The repository root. */
    static Path repository() {
        return Path.of(System.getProperty("deploy.repository", ".."))
                .toAbsolutePath()
                .normalize();
    }

    /** The Helm chart. */
    static Path chart() {
        return repository().resolve("etc/helm/grid-gateway");
    }

    /** Every values file under the chart's {@code ci/}, in name order. */
    static List<Path> ciValues() {
        try (Stream<Path> files = Files.list(chart().resolve("ci"))) {
            return files.filter(p -> p.getFileName().toString().endsWith("-values.yaml"))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A values file under the chart's {@code ci/}. */
    static Path ciValues(String name) {
        return chart().resolve("ci").resolve(name + "-values.yaml");
    }

    /** The root {@code Dockerfile}. */
    static Path dockerfile() {
        return repository().resolve("Dockerfile");
    }

    /** The directory where {@code npm ci} installed the node packages and scripts. */
    static Path npm() {
        return Path.of(System.getProperty("deploy.npm", "target/npm")).toAbsolutePath();
    }

    /** The directory rendered manifests are written to. */
    static Path rendered() {
        return Path.of(System.getProperty("deploy.rendered", "target/rendered")).toAbsolutePath();
    }

    /** A test resource of this module, as a file. */
    static Path resource(String name) {
        return repository().resolve("deploy-check/src/test/resources").resolve(name);
    }
}

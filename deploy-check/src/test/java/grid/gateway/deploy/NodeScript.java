package grid.gateway.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a script of the node packages {@code npm ci} installed under {@code target/npm} (see this module's pom).
 *
 * @param exitCode the process's exit code
 * @param output its standard output and error, interleaved
 */
record NodeScript(int exitCode, String output) {
    /** Generous: a loaded 2-core machine can take seconds to start node and load the schemas. */
    private static final long TIMEOUT_SECONDS = 120;

    /** Runs {@code node <npm>/<script> args...} in the npm directory. */
    static NodeScript run(String script, List<String> args) {
        List<String> command = new ArrayList<>(
                List.of("node", DeployPaths.npm().resolve(script).toString()));
        command.addAll(args);
        Process process;
        try {
            process = new ProcessBuilder(command)
                    .directory(DeployPaths.npm().toFile())
                    .redirectErrorStream(true)
                    .start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError(command + " did not end within " + TIMEOUT_SECONDS + " s");
            }
            return new NodeScript(process.exitValue(), output);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command + " (is node installed?)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** {@code dockerfilelint FILE}. */
    static NodeScript dockerfilelint(Path dockerfile) {
        return run("node_modules/dockerfilelint/bin/dockerfilelint", List.of(dockerfile.toString()));
    }

    /** {@code validate-manifests.mjs FILE...}. */
    static NodeScript validateManifests(List<Path> files) {
        return run("validate-manifests.mjs", files.stream().map(Path::toString).toList());
    }

    /** The output's lines. */
    List<String> lines() {
        return output.lines().toList();
    }
}

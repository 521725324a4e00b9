package grid.gateway.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import grid.gateway.app.config.ConfigCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image builds: the root Dockerfile's build stage is replayed from its own text (the same {@code COPY} layout in
 * a temporary folder, the same {@code RUN} commands, on this machine's Maven and JDK), the runtime stage's
 * {@code COPY --from=build} lines pick up what it produced, and the {@code ENTRYPOINT} runs with
 * {@code --check-config} on the example config, mounted where the chart mounts it. No container engine is needed;
 * the only network is Maven Central, for what the local repository does not hold yet. About 30 s.
 */
class ImageBuildReplayTest {
    @Test
    void dockerfile_buildStageReplays_andTheImagesEntrypointChecksAConfig(@TempDir Path scratch) throws IOException {
        ImageReplay replay = new ImageReplay(
                DockerfileText.read(DeployPaths.dockerfile()), BuildContext.of(DeployPaths.repository()), scratch);

        replay.build();
        Path config =
                ImageReplay.inside(replay.runtimeRoot(), replay.runtimeEnv().get("GRID_GATEWAY_CONFIG"));
        Files.createDirectories(config.getParent());
        Files.copy(DeployPaths.repository().resolve("etc/gateway-example.yaml"), config);
        ImageReplay.Result checked = replay.runEntrypoint(List.of("--check-config", config.toString()));

        report(replay, checked);
        assertThat(checked.exitCode()).as(checked.output()).isEqualTo(ConfigCheck.VALID);
        assertThat(checked.output())
                .contains("Picked up JAVA_TOOL_OPTIONS: " + replay.runtimeEnv().get("JAVA_TOOL_OPTIONS"))
                .contains("shutdown_grace_ms:")
                .contains("site: east");
        assertThat(ImageReplay.inside(replay.runtimeRoot(), "/opt/grid-gateway/libs"))
                .isDirectoryContaining("glob:**.jar");
    }

    @Test
    void unknownInstruction_failsTheReplay(@TempDir Path scratch) {
        // Proves the replay cannot silently skip a step the Dockerfile grows.
        DockerfileText text = DockerfileText.parse("FROM maven:3.9-eclipse-temurin-25 AS build\nSHELL [\"bash\"]\n");

        assertThatThrownBy(() -> new ImageReplay(text, BuildContext.of(DeployPaths.repository()), scratch).build())
                .hasMessageContaining("the replay does not know SHELL");
    }

    @Test
    void failingRun_failsTheReplayWithItsOutput(@TempDir Path scratch) {
        DockerfileText text = DockerfileText.parse("""
                FROM maven:3.9-eclipse-temurin-25 AS build
                WORKDIR /src
                RUN echo building && exit 3
                FROM eclipse-temurin:25-jre
                """);

        assertThatThrownBy(() -> new ImageReplay(text, BuildContext.of(DeployPaths.repository()), scratch).build())
                .hasMessageContaining("exited 3")
                .hasMessageContaining("building");
    }

    @Test
    void copyOfAnIgnoredPath_isRefusedAsDockerWouldNotSendIt(@TempDir Path scratch) {
        DockerfileText text =
                DockerfileText.parse("FROM maven:3.9-eclipse-temurin-25 AS build\nWORKDIR /src\nCOPY etc/ etc/\n");

        assertThatThrownBy(() -> new ImageReplay(text, BuildContext.of(DeployPaths.repository()), scratch).build())
                .hasMessageContaining("excluded by .dockerignore");
    }

    private static void report(ImageReplay replay, ImageReplay.Result checked) throws IOException {
        StringBuilder text = new StringBuilder("Dockerfile replay (no container engine):\n");
        replay.log().forEach(line -> text.append("  ").append(line).append('\n'));
        text.append("  entrypoint --check-config: exit ")
                .append(checked.exitCode())
                .append('\n');
        checked.output()
                .lines()
                .limit(6)
                .forEach(line -> text.append("    ").append(line).append('\n'));
        Path file = DeployPaths.rendered().resolveSibling("image-replay.txt");
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
        System.out.print(text);
    }
}

package grid.gateway.deploy;

import static grid.gateway.deploy.DockerfileText.all;
import static grid.gateway.deploy.Rendered.at;
import static grid.gateway.deploy.Rendered.named;
import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.config.ConfigCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The root Dockerfile passes {@code dockerfilelint} and has the structure the chart relies on: a tagged JRE 21+
 * runtime, a numeric non-root user, the chart's ports and mount points, and the jar with its libraries beside it.
 */
class DockerfileTest {
    private static final DockerfileText DOCKERFILE = DockerfileText.read(DeployPaths.dockerfile());
    private static final Pattern TAGGED = Pattern.compile("[^\\s:@]+(:[\\w][\\w.-]*|@sha256:[0-9a-f]{64})");

    @Test
    void dockerfilelint_findsNoIssue() {
        NodeScript run = NodeScript.dockerfilelint(DeployPaths.dockerfile());

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.output()).contains("Issues: None found");
    }

    @Test
    void dockerfilelint_flagsABadDockerfile(@TempDir Path scratch) throws IOException {
        // Proves the lint can fail: an untagged base image and an apt-get install that would prompt.
        Path bad = scratch.resolve("Dockerfile");
        Files.writeString(bad, "FROM eclipse-temurin\nRUN apt-get install curl\nEXPOSE 80000\n");

        NodeScript run = NodeScript.dockerfilelint(bad);

        assertThat(run.exitCode()).isNotZero();
        assertThat(run.output()).contains("Base Image Missing");
    }

    @Test
    void everyBaseImage_isTagged() {
        for (List<DockerfileText.Instruction> stage : DOCKERFILE.stages()) {
            String image = all(stage, "FROM").get(0).split("\\s+")[0];

            assertThat(image).matches(TAGGED).doesNotEndWith(":latest");
        }
    }

    @Test
    void stages_buildWithAJdk21PlusAndRunOnAJre21Plus() {
        String build = all(DOCKERFILE.stages().get(0), "FROM").get(0);
        String runtime = all(DOCKERFILE.runtime(), "FROM").get(0);

        assertThat(DOCKERFILE.stages()).hasSize(2);
        assertThat(feature(build, "^maven:[\\d.]+-eclipse-temurin-(\\d+)(-\\S*)? AS build$"))
                .isGreaterThanOrEqualTo(21);
        assertThat(feature(runtime, "^eclipse-temurin:(\\d+)[\\w.]*-jre(-\\S+)?$"))
                .isGreaterThanOrEqualTo(21);
    }

    @Test
    void runtime_runsAsTheChartsNumericNonRootUser() {
        List<String> users = all(DOCKERFILE.runtime(), "USER");
        Object podSecurity =
                at(CiRenders.of("defaults").only("Deployment"), "spec", "template", "spec", "securityContext");

        assertThat(users).hasSize(1);
        String[] uidGid = users.get(0).split(":");
        assertThat(uidGid[0]).matches("\\d+");
        assertThat(Integer.parseInt(uidGid[0])).isPositive().isEqualTo(at(podSecurity, "runAsUser"));
        assertThat(Integer.parseInt(uidGid[1])).isEqualTo(at(podSecurity, "runAsGroup"));
        assertThat(at(podSecurity, "runAsNonRoot")).isEqualTo(true);
    }

    @Test
    void runtime_exposesTheChartsDefaultPorts() {
        Rendered defaults = CiRenders.of("defaults");
        List<Object> chartPorts = List.of(
                at(named(defaults.container().get("ports"), "http"), "containerPort"),
                at(named(defaults.container().get("ports"), "admin"), "containerPort"));

        List<Object> exposed = all(DOCKERFILE.runtime(), "EXPOSE").stream()
                .flatMap(e -> Arrays.stream(e.split("\\s+")))
                .map(p -> (Object) Integer.parseInt(p))
                .toList();

        assertThat(exposed).containsExactlyElementsOf(chartPorts);
    }

    @Test
    void runtime_configPathIsTheChartsMount() {
        Rendered defaults = CiRenders.of("defaults");
        String chartConfig = (String) at(named(defaults.container().get("env"), "GRID_GATEWAY_CONFIG"), "value");
        String mountDir = (String) at(named(defaults.container().get("volumeMounts"), "config"), "mountPath");

        assertThat(all(DOCKERFILE.runtime(), "ENV")).contains("GRID_GATEWAY_CONFIG=" + chartConfig);
        assertThat(chartConfig).isEqualTo(mountDir + "/config.yaml");
    }

    @Test
    void dockerfile_documentsTheChartsKeyMount() throws IOException {
        Rendered keyed = CiRenders.of("existing-secret");
        String keyDir = (String) at(named(keyed.container().get("volumeMounts"), "tag-key"), "mountPath");

        assertThat(Files.readString(DeployPaths.dockerfile()))
                .contains(keyDir + "/<file>")
                .contains("/etc/grid-gateway/config.yaml");
        assertThat((String) at(keyed.config(), "gateway", "tag_key_path")).startsWith(keyDir + "/");
    }

    @Test
    void runtime_setsContainerAwareJvmFlagsThroughAnOverridableVariable() {
        assertThat(all(DOCKERFILE.runtime(), "ENV"))
                .anySatisfy(env -> assertThat(env)
                        .startsWith("JAVA_TOOL_OPTIONS=")
                        .contains("-XX:MaxRAMPercentage=")
                        .contains("-XX:+ExitOnOutOfMemoryError"));
    }

    @Test
    void runtime_runsTheJarWithItsLibrariesBesideIt() {
        List<String> copies = all(DOCKERFILE.runtime(), "COPY");

        assertThat(copies)
                .contains(
                        "--from=build /src/app/target/libs/ /opt/grid-gateway/libs/",
                        "--from=build /src/app/target/grid-gateway.jar /opt/grid-gateway/grid-gateway.jar");
        assertThat(all(DOCKERFILE.runtime(), "ENTRYPOINT"))
                .containsExactly("[\"java\", \"-jar\", \"/opt/grid-gateway/grid-gateway.jar\"]");
    }

    @Test
    void appJar_manifestClassPathPointsIntoLibs() throws Exception {
        // The runtime stage copies libs/ beside the jar because the manifest names its libraries there.
        Path jar = Path.of(ConfigCheck.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        Assumptions.assumeTrue(jar.toString().endsWith(".jar"), "app is on the class path as classes, not as its jar");
        try (JarFile file = new JarFile(jar.toFile())) {
            String classPath = file.getManifest().getMainAttributes().getValue("Class-Path");

            assertThat(classPath.split(" ")).isNotEmpty().allMatch(entry -> entry.startsWith("libs/"));
            assertThat(file.getManifest().getMainAttributes().getValue("Main-Class"))
                    .isEqualTo("grid.gateway.app.Main");
        }
    }

    @Test
    void buildStage_copiesEveryModulePomBeforeTheSources() throws IOException {
        // Maven reads every module's POM even with -pl, so a module missing here breaks the image build.
        String parent = Files.readString(DeployPaths.repository().resolve("pom.xml"));
        List<String> modules = Pattern.compile("<module>([^<]+)</module>")
                .matcher(parent)
                .results()
                .map(m -> m.group(1))
                .toList();
        List<String> copies = all(DOCKERFILE.stages().get(0), "COPY");

        assertThat(modules).isNotEmpty();
        for (String module : modules) {
            assertThat(copies).contains(module + "/pom.xml " + module + "/");
        }
    }

    private static int feature(String from, String pattern) {
        Matcher matcher = Pattern.compile(pattern).matcher(from);
        assertThat(matcher.find()).as(from + " matches " + pattern).isTrue();
        return Integer.parseInt(matcher.group(1));
    }
}

package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.config.ConfigException;
import grid.gateway.enginesim.EngineSimulator;
import grid.gateway.routing.tag.ClusterDigest;
import grid.gateway.routing.tag.TagKeyRing;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A gateway whose config or tag key path names a named pipe: refused at start; at a reload, refused while the config
 * in force keeps serving. The preemptive bounds only fail a test whose read would block.
 */
class SpecialFilesIntegrationTest {
    private static final Duration FAILURE_BOUND = Duration.ofSeconds(20);
    private static final String KEY = "pipe-test-key-0123456789";

    @TempDir
    Path dir;

    private final EngineSimulator east = GatewayHarness.engine("east-a");
    private GatewayHarness gateway;

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
        east.close();
    }

    private static void mkfifo(Path path) throws IOException, InterruptedException {
        Process mkfifo = new ProcessBuilder("mkfifo", path.toString()).start();
        assertThat(mkfifo.waitFor()).as("mkfifo " + path).isZero();
    }

    private String config(Path key) {
        return GatewayHarness.config("  tag_key_path: " + key, GatewayHarness.oneEngine(east.url()));
    }

    @Test
    void start_tagKeyPathIsANamedPipe_refusedWithTheKeyAndThePath() throws Exception {
        Path key = dir.resolve("tag-key");
        mkfifo(key);
        Path file = Files.writeString(dir.resolve("gateway.yaml"), config(key));

        assertTimeoutPreemptively(
                FAILURE_BOUND,
                () -> assertThatThrownBy(() -> gateway = GatewayHarness.fromFile(file))
                        .isInstanceOf(ConfigException.class)
                        .hasMessage("gateway.tag_key_path: \"" + key
                                + "\": cannot read the tag key file (not a regular file: a named pipe)"));
    }

    @Test
    void reload_configAndKeyFilesSwappedForNamedPipes_refusedAndTheOldConfigServes() throws Exception {
        Path key = Files.writeString(dir.resolve("tag-key"), KEY + "\n");
        Path file = Files.writeString(dir.resolve("gateway.yaml"), config(key));
        gateway = GatewayHarness.fromFile(file);
        String digest = ClusterDigest.of("east-a");
        // Tagged with the key in force: a 200 says the gateway still verifies with it.
        String stored = "/v1/responses/resp_east." + digest + "."
                + TagKeyRing.parse(KEY).sign("east", digest) + "." + GatewayHarness.storedResponse(east);
        assertThat(get(stored).statusCode()).isEqualTo(200);

        Files.delete(key);
        mkfifo(key);
        assertTimeoutPreemptively(FAILURE_BOUND, gateway.server::reloadNow);
        assertThat(get(stored).statusCode()).as("the old config serves").isEqualTo(200);

        Files.delete(file);
        mkfifo(file);
        assertTimeoutPreemptively(FAILURE_BOUND, gateway.server::reloadNow);
        assertThat(get(stored).statusCode()).as("the old config serves").isEqualTo(200);

        String metrics = gateway.client
                .send(
                        HttpRequest.newBuilder(
                                        URI.create("http://127.0.0.1:" + gateway.server.adminPort() + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        assertThat(metrics).containsPattern("grid_config_reloads_total\\{result=\"refused\"[^}]*} 2\\.0");
    }

    private HttpResponse<String> get(String path) throws Exception {
        return gateway.client.send(
                HttpRequest.newBuilder(gateway.uri(path)).build(), HttpResponse.BodyHandlers.ofString());
    }
}

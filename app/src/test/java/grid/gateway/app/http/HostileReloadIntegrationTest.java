package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.CapturedLog;
import grid.gateway.app.GatewayHarness;
import grid.gateway.app.RefusingPort;
import grid.gateway.enginesim.EngineSimulator;
import grid.gateway.routing.tag.ClusterDigest;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile configs written over the one in force, each read by a reload of a running gateway: each is refused, counted
 * once in {@code grid_config_reloads_total{result="refused"}} and logged as one WARNING line, and a real request is
 * answered as before. Each variant also moves the only cluster to a port where nothing listens, so that a change
 * applied even in part would be seen: the stored response would no longer be found.
 */
class HostileReloadIntegrationTest {
    private static final String DEAD = RefusingPort.shared().url();

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

    @Test
    void hostileReloads_eachRefusedCountedAndLoggedOnce_theConfigInForceAnswersAsBefore() throws Exception {
        String valid = GatewayHarness.config("", GatewayHarness.oneEngine(east.url()));
        Path file = Files.writeString(dir.resolve("gateway.yaml"), valid);
        gateway = GatewayHarness.fromFile(file);
        String stored =
                "/v1/responses/resp_east." + ClusterDigest.of("east-a") + ".." + GatewayHarness.storedResponse(east);
        HttpResponse<String> before = get(stored);
        assertThat(before.statusCode()).isEqualTo(200);
        String moved = valid.replace(east.url(), DEAD);
        int refused = 0;

        for (Map.Entry<String, byte[]> variant : variants(moved).entrySet()) {
            Files.write(file, variant.getValue());
            try (CapturedLog log = CapturedLog.named("grid.gateway.config")) {
                gateway.server.reloadNow();

                assertThat(log.records())
                        .as(variant.getKey())
                        .singleElement()
                        .satisfies(r -> assertThat(r.getLevel()).isEqualTo(Level.WARNING))
                        .extracting(LogRecord::getMessage)
                        .satisfies(line -> assertThat(line)
                                .contains("refused, the config in force stays")
                                .doesNotContain("\n")
                                .hasSizeLessThan(20_000));
            }
            refused++;
            HttpResponse<String> after = get(stored);
            assertThat(after.statusCode()).as(variant.getKey()).isEqualTo(200);
            assertThat(after.body()).as(variant.getKey()).isEqualTo(before.body());
            assertThat(metrics())
                    .as(variant.getKey())
                    .containsPattern("grid_config_reloads_total\\{result=\"refused\"[^}]*} " + refused + "\\.0")
                    .doesNotContainPattern("grid_config_reloads_total\\{result=\"applied\"[^}]*} [1-9]");
        }

        Files.writeString(file, moved);
        gateway.server.reloadNow();
        assertThat(get(stored).statusCode()).as("a valid change still applies").isNotEqualTo(200);
        assertThat(metrics()).containsPattern("grid_config_reloads_total\\{result=\"applied\"[^}]*} 1\\.0");
    }

    /** Hostile variants of {@code config}, by name. */
    private static Map<String, byte[]> variants(String config) {
        Map<String, String> text = new LinkedHashMap<>();
        text.put("an unknown key", config + "bogus: 1\n");
        text.put("server.tls a string", config.replace("server:\n", "server:\n  tls: on\n"));
        text.put(
                "a cluster named twice",
                config.replace(
                        "      - name: east-a\n",
                        "      - name: east-a\n        url: " + DEAD
                                + "\n        models: [demo-model]\n      - name: east-a\n"));
        text.put(
                "a site named twice",
                config + "  - name: east\n    clusters:\n      - name: east-b\n        url: " + DEAD
                        + "\n        models: [demo-model]\n");
        text.put("a model name of 512 KiB", config.replace("[demo-model]", "[" + "m".repeat(1 << 19) + "]"));
        text.put("a model name with a zero-width space", config.replace("[demo-model]", "[\"demo\\u200Bmodel\"]"));
        text.put("a url of 512 KiB", config.replace(DEAD, DEAD + "/" + "p".repeat(1 << 19)));
        text.put("the local site not listed", config.replace("  site: east\n", "  site: west\n"));
        text.put(
                "a window shorter than the poll",
                config + "plugins:\n  grid_site_route:\n    load:\n"
                        + "      poll_interval_ms: 5000\n      window_secs: 2\n");
        text.put(
                "the admin port the client port",
                config.replace("  port: 0\n  admin_port: 0\n", "  port: 18080\n  admin_port: 18080\n"));
        text.put("a billion laughs", laughs() + config);
        text.put("a mebibyte of list items", config + "x: [" + "1,".repeat(500_000) + "1]\n");
        text.put("a site name over lines", config.replace("  site: east\n", "  site: \"east\\nforged\"\n"));
        text.put("two documents", config + "---\n" + config);
        text.put("a Java tag", config + "x: !!java/object:java.lang.Runtime {}\n");
        text.put("empty", "");
        Map<String, byte[]> bytes = new LinkedHashMap<>();
        text.forEach((name, yaml) -> bytes.put(name, yaml.getBytes(StandardCharsets.UTF_8)));
        byte[] notUtf8 = config.getBytes(StandardCharsets.UTF_8);
        notUtf8[notUtf8.length - 2] = (byte) 0xC3;
        bytes.put("not UTF-8", notUtf8);
        return bytes;
    }

    /** Ten levels of ten aliases each: 10^10 strings once expanded. */
    private static String laughs() {
        StringBuilder yaml = new StringBuilder("l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for (int i = 1; i < 10; i++) {
            yaml.append("l").append(i).append(": &l").append(i).append(" [");
            yaml.append(String.join(", ", java.util.Collections.nCopies(10, "*l" + (i - 1))));
            yaml.append("]\n");
        }
        return yaml.toString();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return gateway.client.send(
                HttpRequest.newBuilder(gateway.uri(path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private String metrics() throws Exception {
        return gateway.client
                .send(
                        HttpRequest.newBuilder(
                                        URI.create("http://127.0.0.1:" + gateway.server.adminPort() + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }
}

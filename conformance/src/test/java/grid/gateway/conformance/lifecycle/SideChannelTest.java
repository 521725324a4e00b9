package grid.gateway.conformance.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.enginesim.EngineSimulator;
import grid.gateway.enginesim.RecordedRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reliability I.93–95, the prefix index as a side channel: a {@code cache_salt} isolates a tenant in the gateway's
 * index and, forwarded unchanged, in the engine's cache (paired: same salt hit and cached, other salt miss and cold);
 * unsalted prompts are shared across tenants (the documented limit).
 */
class SideChannelTest {
    private static final String PROMPT = "Tenant secret plan: move the grid to the east site before Friday. ";
    private static final Pattern CACHED = Pattern.compile("\"cached_tokens\"\\s*:\\s*(\\d+)");

    @TempDir
    Path dir;

    private LifecycleGrid grid;
    private EngineSimulator eastA;
    private EngineSimulator eastB;

    @BeforeEach
    void start() {
        grid = new LifecycleGrid(dir);
        eastA = grid.engine("east-a");
        eastB = grid.engine("east-b");
        // A slow prefill makes a match worth more than a queued request or two, so affinity, not load, decides.
        grid.writeConfig(
                "gateway:\n  site: east\nplugins:\n  grid_site_route:\n    prefix_affinity: {prefill_tokens_per_second: 100}\n",
                Map.of("east", List.of("east-a", "east-b")));
        grid.startGateway(1);
    }

    @AfterEach
    void stop() {
        grid.close();
    }

    @Test
    void sameSaltHitsAndIsCached_otherSaltMissesAndIsCold() throws Exception {
        grid.queues(Map.of("east-a", 0, "east-b", 1));
        assertThat(send(eastA, salted("tenant-a-3f9c2b7e"), "Bearer tenant-a")).isZero();

        grid.queues(Map.of("east-a", 1, "east-b", 0));
        double hits = hits();
        double misses = misses();
        // Tenant B with its own salt: load alone decides (east-b, the shorter queue), and east-b's cache is cold.
        assertThat(send(eastB, salted("tenant-b-81d0aa45"), "Bearer tenant-b")).isZero();
        assertThat(misses() - misses).isEqualTo(1);
        assertThat(hits() - hits).isZero();
        // The same prompt with tenant A's salt sticks to east-a, whose engine serves it from its cache.
        assertThat(send(eastA, salted("tenant-a-3f9c2b7e"), "Bearer tenant-a")).isPositive();
        assertThat(hits() - hits).isEqualTo(1);
    }

    @Test
    void unsaltedPromptOfAnotherTenant_hitsTheSameCluster_theDocumentedLimit() throws Exception {
        grid.queues(Map.of("east-a", 0, "east-b", 1));
        assertThat(send(eastA, LifecycleGrid.chat(PROMPT, 20, ""), "Bearer tenant-a"))
                .isZero();

        grid.queues(Map.of("east-a", 1, "east-b", 0));
        double hits = hits();
        // Tenant B learns (from the cluster and from the cached tokens) that someone sent this prompt recently.
        assertThat(send(eastA, LifecycleGrid.chat(PROMPT, 20, ""), "Bearer tenant-b"))
                .isPositive();
        assertThat(hits() - hits).isEqualTo(1);
    }

    @Test
    void cacheSalt_reachesTheEngineByteForByte_andNeverShowsInMetrics() throws Exception {
        String salt = "s\\u00e4lt-\\/-\u2713-9f3a";
        String body = salted(salt);
        grid.queues(Map.of("east-a", 0, "east-b", 1));

        send(eastA, body, "Bearer tenant-a");

        assertThat(grid.gateway.metrics()).doesNotContain("9f3a");
    }

    private String salted(String salt) {
        return LifecycleGrid.chat(PROMPT, 20, "\"cache_salt\":\"" + salt + "\",");
    }

    /** Sends {@code body}; asserts that {@code expected} served it with the body unchanged; the cached tokens. */
    private long send(EngineSimulator expected, String body, String authorization) throws InterruptedException {
        HttpResponse<String> answer = grid.gateway.post("/v1/chat/completions", body, "Authorization", authorization);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        RecordedRequest received = expected.takeRequest(Duration.ofSeconds(5)).orElseThrow();
        assertThat(received.bodyBytes()).isEqualTo(body.getBytes(StandardCharsets.UTF_8));
        assertThat(received.header("authorization")).contains(authorization);
        Matcher cached = CACHED.matcher(answer.body());
        return cached.find() ? Long.parseLong(cached.group(1)) : 0;
    }

    private double hits() {
        return grid.gateway.metric("grid_route_prefix_affinity_total", "outcome=\"hit\"");
    }

    private double misses() {
        return grid.gateway.metric("grid_route_prefix_affinity_total", "outcome=\"miss\"");
    }
}

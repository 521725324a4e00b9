package grid.gateway.conformance.sharing;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.routing.tag.ClusterDigest;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.StreamEntryID;

/**
 * {@code sharing.share_backlog} with a real Redis: under {@code load.order_by: expected_wait}, a prompt replica A
 * sends reaches replica B's prefill backlog for that cluster (as {@code /route/explain} reports it); without the key
 * nothing travels; a bad send written straight into the stream is counted and never applied.
 */
class BacklogSharingTest {
    private static final String LOAD = "    load:\n      order_by: expected_wait\n";
    /** A slow prefill rate: a prompt's backlog lasts a minute, so the milliseconds a send travels do not drain it. */
    private static final String SLOW = "      prefill_tokens_per_second: 10\n";

    private static final String SHARE = "        share_backlog: true\n";
    private static final String PUBLISHED = "grid_prefix_sharing_published_total";
    private static final String APPLIED = "grid_prefix_sharing_applied_total";
    private static final String MALFORMED = "reason=\"malformed\"";

    @TempDir
    Path dir;

    private SharingGrid grid;

    @AfterEach
    void stop() {
        if (grid != null) {
            grid.close();
        }
    }

    @Test
    void aSendOnA_joinsBsBacklogForThatCluster() throws Exception {
        grid = new SharingGrid(dir, LOAD, SLOW, SHARE);
        GatewayHarness a = grid.start(1);
        GatewayHarness b = grid.start(2);
        grid.queues(0, 0);
        double applied = b.metric(APPLIED, "");

        assertThat(SharingGrid.chat(a, SharingGrid.prompt("a long prompt")).statusCode())
                .isEqualTo(200);
        String first = grid.servedBy();
        // A's send and its confirmation: both applied on B (one registry: A applies nothing of its own).
        GatewayHarness.await("B applied A's send and confirmation", () -> b.metric(APPLIED, "") >= applied + 2);

        assertThat(backlog(b, first)).isGreaterThan(1);
        String other = first.equals("east-a") ? "east-b" : "east-a";
        assertThat(backlog(b, other)).isZero();
    }

    @Test
    void withoutTheKey_nothingTravels_andBsBacklogStaysEmpty() throws Exception {
        grid = new SharingGrid(dir, LOAD, SLOW, "");
        GatewayHarness a = grid.start(1);
        GatewayHarness b = grid.start(2);
        grid.queues(0, 0);
        double published = a.metric(PUBLISHED, "");

        assertThat(SharingGrid.chat(a, SharingGrid.prompt("not shared")).statusCode())
                .isEqualTo(200);
        String first = grid.servedBy();
        GatewayHarness.await("B applied A's confirmation", () -> b.metric(APPLIED, "") >= 1);
        GatewayHarness.await("A counted what it published", () -> a.metric(PUBLISHED, "") >= published + 1);

        assertThat(backlog(b, first)).isZero();
        assertThat(a.metric(PUBLISHED, "")).as("the confirmation only").isEqualTo(published + 1);
    }

    @Test
    void badSends_countedAsMalformed_neverApplied() throws Exception {
        grid = new SharingGrid(dir, LOAD, SLOW, SHARE);
        GatewayHarness b = grid.start(2);
        grid.queues(0, 0);
        double malformed = b.metric("grid_prefix_sharing_dropped_total", MALFORMED);
        String digest = ClusterDigest.of("east-a");
        String now = Long.toString(System.currentTimeMillis());
        try (Jedis jedis = new Jedis("127.0.0.1", grid.redis.port())) {
            for (String work : new String[] {"-5", "0", "1.5", "9999999999999"}) {
                jedis.xadd(
                        SharingGrid.STREAM,
                        StreamEntryID.NEW_ENTRY,
                        Map.of("r", "abc", "s", "east", "c", digest, "o", "p", "t", now, "w", work));
            }
            // A send with keys, and a send's work under a confirmation's op.
            jedis.xadd(
                    SharingGrid.STREAM,
                    StreamEntryID.NEW_ENTRY,
                    Map.of("r", "abc", "s", "east", "c", digest, "o", "p", "t", now, "w", "100", "k", "AAAAAAAAAAc="));
            jedis.xadd(
                    SharingGrid.STREAM,
                    StreamEntryID.NEW_ENTRY,
                    Map.of("r", "abc", "s", "east", "c", digest, "o", "c", "t", now, "w", "100"));
        }

        GatewayHarness.await(
                "B counted the six bad sends",
                () -> b.metric("grid_prefix_sharing_dropped_total", MALFORMED) == malformed + 6);
        assertThat(backlog(b, "east-a")).isZero();
        assertThat(SharingGrid.chat(b, SharingGrid.prompt("still routes")).statusCode())
                .isEqualTo(200);
    }

    /** {@code replica}'s prefill backlog for {@code cluster}, seconds, as {@code /route/explain} reports it. */
    private static double backlog(GatewayHarness replica, String cluster) {
        String body = "{\"model\":\"" + SharingGrid.MODEL + "\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}";
        HttpResponse<String> answer = replica.send(
                replica.explainRequest("?path=/v1/chat/completions", body).build());
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        JsonObject explained =
                Json.createReader(new StringReader(answer.body())).readObject();
        return explained.getJsonArray("candidates").stream()
                .map(JsonObject.class::cast)
                .filter(c -> c.getString("cluster").endsWith(cluster))
                .findFirst()
                .orElseThrow()
                .getJsonNumber("prefill_backlog_seconds")
                .doubleValue();
    }
}

package grid.gateway.conformance.sharing;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.enginesim.Fault;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.StreamEntryID;

/**
 * Prefix sharing with a real Redis and the engine simulator: two (or a restarted) gateway replicas share
 * their prefix confirmations and drops through the stream. Queues are equal, so without sharing a replica that never
 * saw a conversation routes it by load ({@code miss}); with sharing it routes to the cluster a peer confirmed
 * ({@code hit}).
 */
class PrefixSharingTest {
    private static final String AFFINITY = "grid_route_prefix_affinity_total";
    private static final String APPLIED = "grid_prefix_sharing_applied_total";

    @TempDir
    Path dir;

    private SharingGrid grid;

    @BeforeEach
    void start() {
        grid = new SharingGrid(dir);
    }

    @AfterEach
    void stop() {
        grid.close();
    }

    @Test
    void confirmationOnA_nextTurnOnB_isAHitOnTheSameCluster() throws Exception {
        GatewayHarness a = grid.start(1);
        GatewayHarness b = grid.start(2);
        grid.queues(0, 0);
        String prompt = SharingGrid.prompt("sharing");

        assertThat(SharingGrid.chat(a, prompt).statusCode()).isEqualTo(200);
        String first = grid.servedBy();
        GatewayHarness.await("B applied A's confirmation", () -> b.metric(APPLIED, "") >= 1);
        double hits = hits(b);

        assertThat(SharingGrid.chat(b, prompt).statusCode()).isEqualTo(200);
        assertThat(grid.servedBy()).isEqualTo(first);
        assertThat(hits(b)).isEqualTo(hits + 1);
        assertThat(a.metric("grid_prefix_sharing_published_total", "")).isGreaterThanOrEqualTo(1);
        assertThat(a.metric("grid_prefix_sharing_connected", "")).isEqualTo(1);
    }

    @Test
    void dropOnA_reachesB_whichNoLongerCountsTheMatch() throws Exception {
        GatewayHarness a = grid.start(1);
        GatewayHarness b = grid.start(2);
        grid.queues(0, 0);
        String prompt = SharingGrid.prompt("a dropped prefix");
        assertThat(SharingGrid.chat(a, prompt).statusCode()).isEqualTo(200);
        String first = grid.servedBy();
        GatewayHarness.await("B applied the confirmation", () -> b.metric(APPLIED, "") >= 1);

        // The same conversation's next turn on A: the cluster answers 503, so A drops the prefix there.
        grid.engines.get(first).failNext(1, Fault.status(503));
        assertThat(SharingGrid.chat(a, prompt).statusCode()).isEqualTo(503);
        grid.servedBy();
        GatewayHarness.await("B applied the drop", () -> b.metric(APPLIED, "") >= 2);
        double hits = hits(b);
        double misses = b.metric(AFFINITY, "outcome=\"miss\"");

        assertThat(SharingGrid.chat(b, prompt).statusCode()).isEqualTo(200);
        assertThat(hits(b)).isEqualTo(hits);
        assertThat(b.metric(AFFINITY, "outcome=\"miss\"")).isEqualTo(misses + 1);
    }

    @Test
    void replicaRestartedMidRun_routesAKnownConversationAsAHit_afterWarmStart() throws Exception {
        GatewayHarness a = grid.start(1);
        grid.queues(0, 0);
        String prompt = SharingGrid.prompt("a rolling update");
        assertThat(SharingGrid.chat(a, prompt).statusCode()).isEqualTo(200);
        String first = grid.servedBy();
        GatewayHarness.await("A published", () -> a.metric("grid_prefix_sharing_published_total", "") >= 1);

        grid.stop(a);
        GatewayHarness restarted = grid.start(3); // returns once it replayed the stream
        grid.queues(0, 0);

        assertThat(restarted.metric(APPLIED, "")).isGreaterThanOrEqualTo(1);
        assertThat(SharingGrid.chat(restarted, prompt).statusCode()).isEqualTo(200);
        assertThat(grid.servedBy()).isEqualTo(first);
        assertThat(hits(restarted)).isEqualTo(1);
    }

    @Test
    void redisKilledMidRun_routingContinues_metricsSayDisconnected_sharingResumesAfterItReturns() throws Exception {
        GatewayHarness a = grid.start(1);
        GatewayHarness b = grid.start(2);
        grid.queues(0, 0);
        GatewayHarness.await("connected", () -> a.metric("grid_prefix_sharing_connected", "") == 1);

        grid.redis.kill();
        GatewayHarness.await("disconnected", () -> a.metric("grid_prefix_sharing_connected", "") == 0);
        String alone = SharingGrid.prompt("while Redis is away");
        for (int turn = 0; turn < 3; turn++) {
            assertThat(SharingGrid.chat(a, alone).statusCode()).isEqualTo(200);
            assertThat(SharingGrid.chat(b, alone).statusCode()).isEqualTo(200);
        }
        GatewayHarness.await(
                "what A could not send is counted",
                () -> a.metric("grid_prefix_sharing_dropped_total", "reason=\"unsent\"") >= 1);
        grid.servedBy();

        grid.redis.restart(); // empty: a restarted Redis without persistence, or a flushed one
        GatewayHarness.await("reconnected", () -> a.metric("grid_prefix_sharing_connected", "") == 1);
        double applied = b.metric(APPLIED, "");
        String prompt = SharingGrid.prompt("after Redis returned");
        assertThat(SharingGrid.chat(a, prompt).statusCode()).isEqualTo(200);
        String first = grid.servedBy();
        GatewayHarness.await("B applied A's confirmation again", () -> b.metric(APPLIED, "") > applied);
        double hits = hits(b);
        assertThat(SharingGrid.chat(b, prompt).statusCode()).isEqualTo(200);
        assertThat(grid.servedBy()).isEqualTo(first);
        assertThat(hits(b)).isEqualTo(hits + 1);
    }

    @Test
    void badDataAndUnknownClusters_ignoredAndCounted_neverApplied() throws Exception {
        GatewayHarness a = grid.start(1);
        try (Jedis jedis = new Jedis("127.0.0.1", grid.redis.port())) {
            jedis.xadd(SharingGrid.STREAM, StreamEntryID.NEW_ENTRY, Map.of("hello", "world"));
            jedis.xadd(
                    SharingGrid.STREAM,
                    StreamEntryID.NEW_ENTRY,
                    Map.of("r", "abc", "s", "east", "c", "00000000", "o", "c", "t", "1", "k", "not base64!"));
            jedis.xadd(
                    SharingGrid.STREAM,
                    StreamEntryID.NEW_ENTRY,
                    Map.of(
                            "r",
                            "abc",
                            "s",
                            "east",
                            "c",
                            "0badc0de",
                            "o",
                            "c",
                            "t",
                            Long.toString(System.currentTimeMillis()),
                            "k",
                            "AAAAAAAAAAE="));
        }
        GatewayHarness.await(
                "bad data counted",
                () -> a.metric("grid_prefix_sharing_dropped_total", "reason=\"malformed\"") == 2
                        && a.metric("grid_prefix_sharing_dropped_total", "reason=\"unknown_cluster\"") == 1);
        assertThat(a.metric(APPLIED, "")).isZero();
        grid.queues(0, 0);
        assertThat(SharingGrid.chat(a, SharingGrid.prompt("still serving")).statusCode())
                .isEqualTo(200);
    }

    private double hits(GatewayHarness replica) {
        return replica.metric(AFFINITY, "outcome=\"hit\"");
    }
}

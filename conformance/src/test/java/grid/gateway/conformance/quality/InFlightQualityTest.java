package grid.gateway.conformance.quality;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.enginesim.EngineSettings;
import grid.gateway.enginesim.EngineSimulator;
import grid.gateway.enginesim.Fault;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code count_sent_since_scrape} through the gateway in process (engine simulators, a manual clock, seed 1, scrapes
 * driven by the test): a conversation sent turn after turn between two scrapes keeps every turn on its sticky
 * cluster, and a burst held in flight at the engines spreads, after such a conversation and where a line waits.
 */
class InFlightQualityTest {
    private static final String COUNT = "count_sent_since_scrape: true";
    private static final String AFFINITY = "grid_route_prefix_affinity_total";

    @TempDir
    Path dir;

    private QualityGrid grid;
    private final List<EngineSimulator> engines = new ArrayList<>();

    @AfterEach
    void stop() {
        if (grid != null) {
            grid.close();
        }
    }

    private void start(String load, int clusters) {
        grid = new QualityGrid(dir);
        for (int i = 0; i < clusters; i++) {
            engines.add(grid.engine(String.valueOf((char) ('a' + i)), EngineSettings.builder()));
        }
        grid.startGateway(load, "");
    }

    private int[] requestCounts() {
        return engines.stream().mapToInt(EngineSimulator::requestCount).toArray();
    }

    /** Turn {@code turn} of a conversation over a shared 6 KiB system prompt: its whole history, then a question. */
    private static String turn(String conversation, int turn) {
        StringBuilder messages = new StringBuilder("{\"role\":\"system\",\"content\":\"")
                .append(QualityGrid.prompt("shared system prompt", 6 * 1_024))
                .append("\"}");
        for (int t = 0; t <= turn; t++) {
            messages.append(",{\"role\":\"user\",\"content\":\"")
                    .append(QualityGrid.prompt(conversation + " asks " + t, 300))
                    .append("\"}");
            if (t < turn) {
                messages.append(",{\"role\":\"assistant\",\"content\":\"")
                        .append(QualityGrid.prompt(conversation + " answer " + t, 120))
                        .append("\"}");
            }
        }
        return "{\"model\":\"" + QualityGrid.MODEL + "\",\"messages\":[" + messages + "]}";
    }

    /** Sends {@code turns} turns one after another, each answered first; returns the index of each turn's engine. */
    private List<Integer> conversation(String name, int turns) {
        List<Integer> servedBy = new ArrayList<>();
        for (int t = 0; t < turns; t++) {
            int[] before = requestCounts();
            assertThat(grid.gateway.post("/v1/chat/completions", turn(name, t)).statusCode())
                    .isEqualTo(200);
            int[] after = requestCounts();
            for (int e = 0; e < after.length; e++) {
                if (after[e] > before[e]) {
                    servedBy.add(e);
                }
            }
        }
        return servedBy;
    }

    @Test
    void sequentialConversation_countInFlight_everyTurnStaysOnItsStickyCluster() {
        start(COUNT, 3);
        double loads = grid.gateway.metric(AFFINITY, "outcome=\"load\"");
        double hits = grid.gateway.metric(AFFINITY, "outcome=\"hit\"");

        List<Integer> servedBy = conversation("conversation", 30);

        assertThat(servedBy).hasSize(30).containsOnly(servedBy.getFirst());
        assertThat(grid.gateway.metric(AFFINITY, "outcome=\"load\"") - loads).isZero();
        assertThat(grid.gateway.metric(AFFINITY, "outcome=\"hit\"") - hits).isEqualTo(29);
    }

    @Test
    void sequentialConversation_enginesSeenRunningOne_noQueueOfFinishedRequests() throws Exception {
        start(COUNT, 3);
        // Every engine is scraped running one request (held across the scrape): one sequence seen running of slots
        // nobody told the gateway.
        heldBurst(3, () -> grid.gateway.server.scrapeNow());
        double loads = grid.gateway.metric(AFFINITY, "outcome=\"load\"");

        List<Integer> servedBy = conversation("conversation", 20);

        assertThat(servedBy).containsOnly(servedBy.getFirst());
        assertThat(grid.gateway.metric(AFFINITY, "outcome=\"load\"") - loads).isZero();
    }

    private int[] heldBurst(int requests) throws Exception {
        return heldBurst(requests, () -> {});
    }

    /**
     * Sends {@code requests} new conversations (prompts that share nothing with anything sent before) one after another
     * without waiting for their answers: each engine holds
     * every answer until the burst is over, and the next request is sent only once the one before it reached its
     * engine; {@code whileHeld} runs while every answer is held. Returns what each engine received.
     */
    private int[] heldBurst(int requests, Runnable whileHeld) throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        engines.forEach(engine -> engine.failNext(requests, Fault.holdFirstByte(release)));
        int[] before = requestCounts();
        List<Future<Integer>> answers = new ArrayList<>();
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < requests; i++) {
                String body = "{\"model\":\"" + QualityGrid.MODEL + "\",\"messages\":[{\"role\":\"user\",\"content\":\""
                        + QualityGrid.prompt("burst conversation " + i, 1_000) + "\"}]}";
                answers.add(clients.submit(
                        () -> grid.gateway.post("/v1/chat/completions", body).statusCode()));
                int total = IntStream.of(before).sum() + i + 1;
                GatewayHarness.await(
                        "request " + (i + 1) + " at its engine",
                        () -> IntStream.of(requestCounts()).sum() == total);
            }
            whileHeld.run();
            release.countDown();
            for (Future<Integer> answer : answers) {
                assertThat(answer.get()).isEqualTo(200);
            }
        }
        engines.forEach(EngineSimulator::clearFailures);
        int[] after = requestCounts();
        for (int e = 0; e < after.length; e++) {
            after[e] -= before[e];
        }
        return after;
    }

    @Test
    void burstAfterASequentialConversation_countInFlight_spreadsOverEveryCluster() throws Exception {
        start(COUNT, 3);
        List<Integer> servedBy = conversation("conversation", 10);
        assertThat(servedBy).containsOnly(servedBy.getFirst());

        // Equal depths, slots unknown: the six spread by what each engine has in flight, the finished turns not
        // counted.
        assertThat(heldBurst(6)).containsExactly(2, 2, 2);
    }

    @Test
    void burstBetweenScrapes_maxRunningSet_fillsTheFreeSlotsThenSpreads() throws Exception {
        grid = new QualityGrid(dir);
        grid.maxRunning(2);
        engines.add(grid.engine("a", EngineSettings.builder()));
        engines.add(grid.engine("b", EngineSettings.builder()));
        grid.startGateway(COUNT, "");
        engines.get(0).setQueueDepth(0);
        engines.get(1).setQueueDepth(1);
        grid.gateway.server.scrapeNow();

        // a: two free slots, then each more queues; b: one waiting, two free slots.
        assertThat(heldBurst(6)).containsExactly(3, 3);
    }

    @Test
    void burstBetweenScrapes_withoutTheCount_herdsOntoTheClusterLeastQueuedAtTheScrape() throws Exception {
        grid = new QualityGrid(dir);
        engines.add(grid.engine("a", EngineSettings.builder()));
        engines.add(grid.engine("b", EngineSettings.builder()));
        grid.startGateway("", "");
        engines.get(0).setQueueDepth(0);
        engines.get(1).setQueueDepth(1);
        grid.gateway.server.scrapeNow();

        assertThat(heldBurst(6)).containsExactly(6, 0);
    }
}

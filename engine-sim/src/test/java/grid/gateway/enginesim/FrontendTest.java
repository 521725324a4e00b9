package grid.gateway.enginesim;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.load.EngineSample;
import grid.gateway.routing.load.EngineSeriesParser;
import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The API server in front of the engine under a burst ({@link Frontend}), against the recorded burst
 * ({@code testdata/vllm/load_burst_200.json}): {@code num_requests_waiting} counts only what reached the engine, and
 * a scrape stalls while the backlog lasts. Requests are held by a gate and the stall by the pacer, so nothing here
 * depends on how fast the machine is.
 */
class FrontendTest {
    private static final String CHAT = "{\"messages\":[{\"role\":\"user\",\"content\":\"burst\"}],\"max_tokens\":4}";
    private static final String QUEUE = "vllm:num_requests_waiting";

    private final StallGate pacer = new StallGate(Duration.ofSeconds(8));
    private final CountDownLatch requests = new CountDownLatch(1);
    private EngineSimulator engine;

    @AfterEach
    void stop() {
        requests.countDown();
        pacer.release.countDown();
        if (engine != null) {
            engine.close();
        }
    }

    @Test
    void burstAsRecorded_waitingUndercountsTheBacklogAndTheScrapeStalls() throws Exception {
        JsonObject burst =
                Recordings.parse(Recordings.text("load_burst_200.json")).asJsonObject();
        int n = burst.getInt("n");
        int running = burst.getJsonNumber("max_running_seen").intValue();
        engine = EngineSettings.builder()
                .slots(running)
                .frontend(Frontend.asRecorded())
                .pacer(pacer)
                .start();
        SimHttp http = new SimHttp(engine);
        engine.failNext(n, Fault.holdFirstByte(requests));
        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            answers.add(http.postAsync("/v1/chat/completions", CHAT));
        }
        assertThat(engine.awaitQueue(running, n - running, SimHttp.TIMEOUT)).isTrue();

        CompletableFuture<HttpResponse<String>> scrape = http.getAsync("/metrics");
        assertThat(pacer.stalled.await(10, TimeUnit.SECONDS)).isTrue();
        // The scrape is held while the pacer stands for the recorded 8 s: no answer yet.
        assertThat(scrape).isNotDone();
        pacer.release.countDown();
        EngineSample during = sample(scrape.get(10, TimeUnit.SECONDS).body());

        // What the recorded polls showed at most: 4 running and 32 waiting, while 196 waited.
        assertThat(during.running()).hasValue(running);
        assertThat(during.waiting())
                .hasValue(burst.getJsonNumber("max_waiting_seen").doubleValue());
        assertThat(engine.waiting()).isEqualTo(n - running);
        requests.countDown();
        for (CompletableFuture<HttpResponse<String>> answer : answers) {
            assertThat(answer.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
        assertThat(sample(http.get("/metrics").body()).waiting()).hasValue(0);
        assertThat(pacer.stalls).containsExactly(Duration.ofSeconds(8));
    }

    @Test
    void belowTheBacklog_scrapesAnsweredAtOnce() throws Exception {
        engine = EngineSettings.builder()
                .slots(2)
                .frontend(new Frontend(Integer.MAX_VALUE, 4, Duration.ofSeconds(8)))
                .pacer(pacer)
                .start();
        SimHttp http = new SimHttp(engine);
        engine.failNext(3, Fault.holdFirstByte(requests));
        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            answers.add(http.postAsync("/v1/chat/completions", CHAT));
        }
        assertThat(engine.awaitQueue(2, 1, SimHttp.TIMEOUT)).isTrue();

        assertThat(sample(http.get("/metrics").body()).waiting()).hasValue(1);
        assertThat(pacer.stalls).isEmpty();
        requests.countDown();
        for (CompletableFuture<HttpResponse<String>> answer : answers) {
            answer.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void engineIntake_hidesTheRestOfTheBacklog_byReasonSumsToIt() throws Exception {
        engine = EngineSettings.builder()
                .slots(2)
                .frontend(new Frontend(3, Integer.MAX_VALUE, Duration.ZERO))
                .instant()
                .start();
        SimHttp http = new SimHttp(engine);
        engine.failNext(6, Fault.holdFirstByte(requests));
        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            answers.add(http.postAsync("/v1/chat/completions", CHAT));
        }
        assertThat(engine.awaitQueue(2, 4, SimHttp.TIMEOUT)).isTrue();

        String page = http.get("/metrics").body();
        // Three requests reached the engine (2 running, 1 waiting); three more wait unseen in the API server.
        assertThat(sample(page).waiting()).hasValue(1);
        assertThat(page)
                .contains(
                        "vllm:num_requests_waiting_by_reason{engine=\"0\",model_name=\"demo-model\",reason=\"capacity\"} 1.0")
                .contains(
                        "vllm:num_requests_waiting_by_reason{engine=\"0\",model_name=\"demo-model\",reason=\"deferred\"} 0.0");
        assertThat(engine.waiting()).isEqualTo(4);
        requests.countDown();
        for (CompletableFuture<HttpResponse<String>> answer : answers) {
            answer.get(10, TimeUnit.SECONDS);
        }
    }

    private static EngineSample sample(String page) {
        return new EngineSeriesParser().parse(page, QUEUE, 0);
    }

    /** A pacer that spends no time, except that a pause of {@code stall} or more waits for {@link #release}. */
    private static final class StallGate implements Pacer {
        final CountDownLatch stalled = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final List<Duration> stalls = new CopyOnWriteArrayList<>();
        private final Duration stall;

        StallGate(Duration stall) {
            this.stall = stall;
        }

        @Override
        public void pause(Duration duration) throws InterruptedException {
            if (duration.compareTo(stall) >= 0) {
                stalls.add(duration);
                stalled.countDown();
                if (!release.await(10, TimeUnit.SECONDS)) {
                    throw new AssertionError("the stall was never released");
                }
            }
        }
    }
}

package grid.gateway.conformance.outside;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import grid.gateway.routing.select.BinomialBounds;
import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * design.md §10 as a Prometheus scraper sees it on the packaged jar's admin port, after traffic from outside: each
 * outcome of {@code grid_route_prefix_affinity_total} reached and each request counted once, one admitted candidate
 * counting nothing, the cached-token counters per cluster and outcome matching what the engines' answers reported,
 * the label sets, and the health endpoints; and §12/§13's start from the environment alone with JSON log lines. The
 * jar is the {@link SharedGrid} one, which {@link TagsAndErrorsTest} uses too (its random source is not seeded:
 * outcomes that 2% exploration could replace are checked as "this outcome or explore", and each is required at least
 * once in four tries).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ExtendWith(SharedGrid.class)
class RoutingMetricsTest {
    private static final String AFFINITY = "grid_route_prefix_affinity_total";
    private static final String PREDICTED = "grid_prefix_cached_tokens_predicted_total";
    private static final String REPORTED = "grid_prefix_cached_tokens_reported_total";
    private static final List<String> OUTCOMES = List.of("hit", "load", "miss", "explore", "unkeyed");
    private static final String SENTENCE = "The grid keeps a conversation where its prefix is cached. ";
    private static final int TRIES = 4;

    private static OutsideGrid grid;

    @BeforeAll
    static void start(SharedGrid shared) {
        assumeThat(OutsideJar.unavailable()).as("the jar cannot run").isNull();
        grid = shared.grid();
    }

    @Test
    @Order(1)
    void startedFromTheEnvironment_printsBothPortLines_logsJsonLines() {
        assertThat(grid.jar.stdout())
                .anySatisfy(l -> assertThat(l).matches("grid-gateway listening port=[1-9]\\d*"))
                .anySatisfy(l -> assertThat(l).matches("grid-gateway admin port=[1-9]\\d*"));
        assertThat(grid.jar.stderr())
                .isNotEmpty()
                .allSatisfy(
                        line -> assertThat(OutsideGrid.json(line)).containsKeys("time", "level", "logger", "message"));
    }

    @Test
    @Order(2)
    void health_liveAndReadyOnTheAdminPortOnly() {
        HttpResponse<String> live = grid.admin("/health/live", "*/*");
        HttpResponse<String> ready = grid.admin("/health/ready", "*/*");

        assertThat(live.statusCode()).isEqualTo(200);
        assertThat(live.body().strip()).isEqualTo("live");
        assertThat(ready.statusCode()).isEqualTo(200);
        assertThat(ready.body().strip()).isEqualTo("ready");
        assertThat(grid.send("GET", "/health/ready", null).statusCode()).isEqualTo(404);
    }

    @Test
    @Order(3)
    void unkeyedRequests_eachCountedOnce_someExplore() throws Exception {
        // 600 requests: none explores with probability 0.98^600 < 1e-5; the upper bound is the central 1 - 1e-6
        int n = 600;
        String body = "{\"model\":\"demo-model\",\"prompt\":[101,2023,2003,1037,3231,102],\"max_tokens\":1}";
        List<OutsideGrid.Sample> before = grid.scrape();
        try (ExecutorService clients = Executors.newFixedThreadPool(8)) {
            List<Future<Integer>> statuses = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                statuses.add(clients.submit(
                        () -> grid.send("POST", "/v1/completions", body).statusCode()));
            }
            for (Future<Integer> status : statuses) {
                assertThat(status.get()).isEqualTo(200);
            }
        }
        List<OutsideGrid.Sample> after = grid.scrape();

        assertThat(delta(before, after, AFFINITY))
                .as("every request counted once")
                .isEqualTo(n);
        long explored = delta(before, after, AFFINITY, "outcome", "explore");
        assertThat(delta(before, after, AFFINITY, "outcome", "unkeyed") + explored)
                .isEqualTo(n);
        assertThat(explored).isBetween(1L, BinomialBounds.central(n, 0.02, 1 - 1e-6)[1]);
    }

    @Test
    @Order(4)
    void keyedOutcomes_missLoadHit_eachCountedOnce_cachedTokensAsTheEnginesReported() {
        List<String> prompts = new ArrayList<>();
        for (int i = 0; i < TRIES; i++) {
            prompts.add("Prompt " + i + ". " + SENTENCE.repeat(60));
        }
        grid.queue("east-b", 1);
        Map<String, Integer> misses = tally(prompts, "east-a", "miss");
        grid.queue("east-a", 5);
        Map<String, Integer> loads = tally(prompts, "east-b", "load");
        Map<String, Integer> hits = tally(prompts, "east-b", "hit");
        grid.engines.get("east-a").setQueueDepth(0);
        grid.engines.get("east-b").setQueueDepth(0);

        assertThat(misses.get("miss")).as("misses of " + TRIES).isPositive();
        assertThat(loads.get("load")).as("load outcomes of " + TRIES).isPositive();
        assertThat(hits.get("hit")).as("hits of " + TRIES).isPositive();
    }

    @Test
    @Order(5)
    void oneAdmittedCandidate_countsNoAffinityOutcome_cachedTokensUnderNone_plainStreamedAndResponses() {
        String prompt = SENTENCE.repeat(20);
        String chat = "{\"model\":\"west-model\",\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]";
        List<String[]> sends = List.of(
                new String[] {"/v1/chat/completions", chat + "}"},
                new String[] {"/v1/chat/completions", chat + "}"},
                new String[] {
                    "/v1/chat/completions", chat + ",\"stream\":true,\"stream_options\":{\"include_usage\":true}}"
                },
                new String[] {"/v1/responses", "{\"model\":\"west-model\",\"input\":\"" + prompt + "\"}"},
                new String[] {"/v1/responses", "{\"model\":\"west-model\",\"input\":\"" + prompt + "\"}"});
        long reported = 0;
        for (String[] send : sends) {
            List<OutsideGrid.Sample> before = grid.scrape();
            HttpResponse<String> answer = grid.send("POST", send[0], send[1]);
            long cached = cached(answer);
            List<OutsideGrid.Sample> after = grid.scrapeUntil(page -> delta(before, page, REPORTED) == cached);

            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
            reported += cached;
            assertThat(delta(before, after, AFFINITY)).isZero();
            assertThat(delta(before, after, REPORTED)).as(answer.body()).isEqualTo(cached);
            assertThat(delta(before, after, REPORTED, "cluster", "west/west-a", "outcome", "none"))
                    .isEqualTo(cached);
            assertThat(delta(before, after, PREDICTED)).isZero();
        }
        assertThat(reported)
                .as("the engine reported cached tokens for the repeats")
                .isPositive();
    }

    @Test
    @Order(6)
    void refusedConnection_nextCandidateServes_countedOnce_ejectedClusterLeavesOneCandidate() {
        // east-refusing (depth 0) is first by load, east-c (depth 1) second: the first try is refused, the second
        // served
        grid.queue("east-c", 1);
        String body = "{\"model\":\"retry-model\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
        for (int i = 0; i < 4; i++) {
            List<OutsideGrid.Sample> before = grid.scrape();
            Map<String, Integer> counts = grid.counts();
            HttpResponse<String> answer = grid.send("POST", "/v1/chat/completions", body);
            List<OutsideGrid.Sample> after = grid.scrape();

            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
            assertThat(grid.grew(counts)).containsExactly("east-c");
            long refused = delta(
                    before, after, "grid_upstream_errors_total", "cluster", "east/east-refusing", "kind", "connect");
            // three refusals in a row eject east-refusing: the fourth request has one admitted candidate
            assertThat(refused).as("request " + i).isEqualTo(i < 3 ? 1 : 0);
            assertThat(delta(before, after, AFFINITY)).as("request " + i).isEqualTo(i < 3 ? 1 : 0);
        }
        grid.engines.get("east-c").setQueueDepth(0);
    }

    @Test
    @Order(7)
    void labelSets_asAScraperSeesThem() {
        List<OutsideGrid.Sample> page = grid.scrape();

        assertThat(values(page, AFFINITY, "outcome")).containsExactlyInAnyOrderElementsOf(OUTCOMES);
        assertThat(values(page, "grid_route_pinned_total", "outcome"))
                .containsExactlyInAnyOrder("routed", "not_found", "unavailable");
        assertThat(labelNames(page, AFFINITY)).containsExactly(Set.of("outcome", "scope"));
        assertThat(labelNames(page, "grid_route_pinned_total")).containsExactly(Set.of("outcome", "scope"));
        Set<String> clusters = Set.of(
                "east/east-a",
                "east/east-b",
                "east/east-c",
                "east/east-dead",
                "east/east-drain",
                "east/east-refusing",
                "west/west-a");
        for (String counter : List.of(PREDICTED, REPORTED)) {
            assertThat(labelNames(page, counter)).containsExactly(Set.of("cluster", "outcome", "scope"));
            assertThat(values(page, counter, "outcome"))
                    .isSubsetOf("hit", "load", "miss", "explore", "unkeyed", "none");
            assertThat(values(page, counter, "cluster")).isSubsetOf(clusters).contains("east/east-b", "west/west-a");
        }
    }

    /**
     * Sends each prompt once, expecting each to be served by {@code cluster} and counted once as {@code outcome} or
     * {@code explore}, the cached-token counters growing for that cluster and outcome only, by what the answer
     * reported; returns the count per outcome.
     */
    private static Map<String, Integer> tally(List<String> prompts, String cluster, String outcome) {
        Map<String, Integer> tally = new HashMap<>(Map.of(outcome, 0, "explore", 0));
        for (String prompt : prompts) {
            String body =
                    "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}";
            List<OutsideGrid.Sample> before = grid.scrape();
            Map<String, Integer> counts = grid.counts();
            HttpResponse<String> answer = grid.send("POST", "/v1/chat/completions", body);
            long cached = cached(answer);
            List<OutsideGrid.Sample> after = grid.scrapeUntil(page -> delta(before, page, REPORTED) == cached);

            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
            assertThat(grid.grew(counts)).containsExactly(cluster);
            assertThat(delta(before, after, AFFINITY)).as("counted once").isEqualTo(1);
            String decided = OUTCOMES.stream()
                    .filter(o -> delta(before, after, AFFINITY, "outcome", o) == 1)
                    .findFirst()
                    .orElseThrow();
            assertThat(decided).isIn(outcome, "explore");
            tally.merge(decided, 1, Integer::sum);
            String label = "east/" + cluster;
            assertThat(delta(before, after, REPORTED)).isEqualTo(cached);
            assertThat(delta(before, after, REPORTED, "cluster", label, "outcome", decided))
                    .isEqualTo(cached);
            long predicted = delta(before, after, PREDICTED, "cluster", label, "outcome", decided);
            assertThat(delta(before, after, PREDICTED)).isEqualTo(predicted);
            assertThat(predicted % 64).as("run × 64").isZero();
            if (decided.equals("hit")) {
                assertThat(cached).as("the engine holds the prompt it served").isPositive();
                assertThat(predicted).as("a whole-prompt run").isGreaterThanOrEqualTo(64L * (prompt.length() / 256));
            }
        }
        return tally;
    }

    /**
     * The cached tokens an answer's usage reports, 0 when not reported: {@code prompt_tokens_details.cached_tokens}
     * (Chat Completions, plain or in a stream's final usage chunk) or {@code input_tokens_details.cached_tokens}
     * (Responses).
     */
    private static long cached(HttpResponse<String> answer) {
        if (answer.headers().firstValue("content-type").orElse("").startsWith("text/event-stream")) {
            long cached = 0;
            for (String line : answer.body().split("\n")) {
                if (line.startsWith("data: {") && line.contains("\"usage\"")) {
                    cached = cached(OutsideGrid.json(line.substring("data: ".length())));
                }
            }
            return cached;
        }
        return cached(OutsideGrid.json(answer));
    }

    private static long cached(JsonObject answer) {
        if (!answer.containsKey("usage") || answer.isNull("usage")) {
            return 0;
        }
        JsonObject usage = answer.getJsonObject("usage");
        for (String details : List.of("prompt_tokens_details", "input_tokens_details")) {
            if (usage.containsKey(details) && !usage.isNull(details)) {
                return usage.getJsonObject(details)
                        .getJsonNumber("cached_tokens")
                        .longValue();
            }
        }
        return 0;
    }

    private static long delta(
            List<OutsideGrid.Sample> before, List<OutsideGrid.Sample> after, String name, String... labels) {
        return Math.round(OutsideGrid.sum(after, name, labels) - OutsideGrid.sum(before, name, labels));
    }

    private static Set<String> values(List<OutsideGrid.Sample> page, String name, String label) {
        Set<String> values = new HashSet<>();
        page.stream()
                .filter(s -> s.name().equals(name))
                .forEach(s -> values.add(s.labels().get(label)));
        return values;
    }

    private static Set<Set<String>> labelNames(List<OutsideGrid.Sample> page, String name) {
        Set<Set<String>> names = new HashSet<>();
        page.stream()
                .filter(s -> s.name().equals(name))
                .forEach(s -> names.add(s.labels().keySet()));
        return names;
    }
}

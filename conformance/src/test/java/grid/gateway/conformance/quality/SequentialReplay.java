package grid.gateway.conformance.quality;

import grid.gateway.app.GatewayHarness;
import grid.gateway.enginesim.EngineSettings;
import grid.gateway.enginesim.EngineSimulator;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.IntConsumer;
import java.util.function.UnaryOperator;

/**
 * Test fixture: the light-load sequential multi-turn replay. Conversations of {@value #TURNS} turns, each turn sent
 * only when the one before it was answered, and only one request in flight at a time: {@value #WAVE} conversations
 * are active at once, their turns interleaved round-robin, the next wave starting when one ends. Every conversation
 * opens with one of {@value #SYSTEM_PROMPTS} shared system prompts of 6 KiB, and each turn adds a 320-byte user
 * message and a 160-byte assistant answer to its history. Three instant simulated engines of site {@code east},
 * each with a prefix cache of {@value #CACHE_BLOCKS} blocks of 16 tokens (32 KiB of text: a few conversations, far
 * less than the gateway's memory), answer as vLLM does (or as the replay's engine settings change that).
 *
 * <p>Time is the gateway's manual clock: {@value #STEP_MILLIS} ms a request (light load: each answer is instant), and
 * every cluster is scraped once a simulated second, as {@code poll_interval_ms: 1000} would (the scheduled rounds
 * are an hour apart, {@link QualityGrid}; no line ever forms here, so the window's length changes nothing). What is
 * measured:
 *
 * <ul>
 *   <li>hit rate = Σ {@code cached_tokens} ÷ Σ {@code prompt_tokens} over every answer ({@code null} is 0);
 *   <li>the gateway's affinity outcomes over the replay.
 * </ul>
 *
 * <p>{@link #oracle} replays the same conversations straight to the engines, each pinned to the engine of its
 * system prompt: the hit rate of perfect affinity on this traffic (no router sees the engines' caches better).
 *
 * <p>Not thread-safe; one replay at a time.
 */
public final class SequentialReplay {
    static final int TURNS = 6;
    static final int WAVE = 12;
    static final int SYSTEM_PROMPTS = 4;
    /** Each engine's prefix cache, in blocks of 16 tokens: 32 KiB of text, a third of one wave's conversations. */
    public static final int CACHE_BLOCKS = 512;
    /** Simulated time a request takes: 100 requests a second, one at a time, each answered in milliseconds. */
    static final int STEP_MILLIS = 10;

    public static final int ENGINES = 3;
    /** Where each turn is sent. */
    public static final String PATH = "/v1/chat/completions";

    private final int conversations;
    private final UnaryOperator<EngineSettings.Builder> engines;

    /** {@code conversations} conversations on engines built by {@code engines} from the replay's settings. */
    public SequentialReplay(int conversations, UnaryOperator<EngineSettings.Builder> engines) {
        this.conversations = conversations;
        this.engines = engines;
    }

    /**
     * What one replay measured.
     *
     * @param hitRate Σ cached_tokens ÷ Σ prompt_tokens
     * @param outcomes the gateway's affinity outcomes over the replay, by name (empty straight to the engines)
     * @param requests requests sent
     */
    public record Result(double hitRate, Map<String, Double> outcomes, int requests) {
        /** How many requests affinity decided as {@code name} ({@code hit}, {@code load}, ...). */
        public double outcome(String name) {
            return outcomes.getOrDefault(name, 0.0);
        }
    }

    /** The replay through a fresh gateway configured by {@code load} and {@code prefixAffinity} (YAML flow maps). */
    Result throughGateway(Path dir, String load, String prefixAffinity, long seed) {
        try (QualityGrid grid = new QualityGrid(dir)) {
            List<EngineSimulator> started = new ArrayList<>();
            for (int i = 0; i < ENGINES; i++) {
                started.add(grid.engine(
                        "e" + i, engines.apply(EngineSettings.builder().cacheBlocks(CACHE_BLOCKS))));
            }
            grid.startGateway(load, prefixAffinity, seed);
            Map<String, Double> before = outcomes(grid.gateway);
            GatewayHarness gateway = grid.gateway;
            Result replayed = replay(
                    step -> {
                        if (step > 0) {
                            gateway.clock.advance(java.time.Duration.ofMillis(STEP_MILLIS));
                        }
                        if (step % (1_000 / STEP_MILLIS) == 0) {
                            gateway.server.scrapeNow();
                        }
                    },
                    turn -> gateway.post(PATH, turn.body()));
            Map<String, Double> after = outcomes(gateway);
            after.replaceAll((outcome, value) -> value - before.getOrDefault(outcome, 0.0));
            return new Result(replayed.hitRate(), after, replayed.requests());
        }
    }

    /**
     * The replay through {@code send}, one turn at a time, each answered before the next is sent; {@code step} runs
     * before each turn (a scrape, the clock) with the turn's index.
     */
    public Result replay(IntConsumer step, Function<Turn, HttpResponse<String>> send) {
        Tally tally = new Tally();
        List<Turn> turns = schedule();
        for (int i = 0; i < turns.size(); i++) {
            step.accept(i);
            tally.add(send.apply(turns.get(i)));
        }
        return new Result(tally.hitRate(), Map.of(), tally.requests);
    }

    /** The mean hit rate, and the {@code load} outcomes summed, over gateways seeded with {@code seeds}. */
    Result meanThroughGateway(Path dir, String load, String prefixAffinity, long... seeds) {
        double hit = 0;
        Map<String, Double> outcomes = new LinkedHashMap<>();
        int requests = 0;
        for (long seed : seeds) {
            Result one = throughGateway(dir, load, prefixAffinity, seed);
            hit += one.hitRate() / seeds.length;
            one.outcomes().forEach((outcome, count) -> outcomes.merge(outcome, count, Double::sum));
            requests += one.requests();
        }
        return new Result(hit, outcomes, requests);
    }

    /**
     * The replay straight to the engines, each conversation pinned to the engine of its system prompt (prompt
     * {@code p} on engine {@code p mod 3}): every conversation's turns and every sharer of its prefix in one cache.
     */
    Result oracle() {
        List<EngineSimulator> started = new ArrayList<>();
        try {
            for (int i = 0; i < ENGINES; i++) {
                started.add(GatewayHarness.engineSettings(
                                "o" + i,
                                engines.apply(EngineSettings.builder().instant().cacheBlocks(CACHE_BLOCKS)))
                        .start());
            }
            HttpClient client = GatewayHarness.client(java.util.Optional.empty());
            return replay(
                    step -> {},
                    turn -> GatewayHarness.send(
                            client,
                            HttpRequest.newBuilder(
                                            URI.create(started.get(turn.conversation() % SYSTEM_PROMPTS % ENGINES)
                                                            .url()
                                                    + PATH))
                                    .header("Content-Type", "application/json")
                                    .POST(HttpRequest.BodyPublishers.ofString(turn.body()))
                                    .build()));
        } finally {
            started.forEach(EngineSimulator::close);
        }
    }

    private static Map<String, Double> outcomes(GatewayHarness gateway) {
        Map<String, Double> counts = new LinkedHashMap<>();
        for (String outcome : List.of("hit", "load", "miss", "explore", "unkeyed")) {
            counts.put(outcome, gateway.metric("grid_route_prefix_affinity_total", "outcome=\"" + outcome + "\""));
        }
        return counts;
    }

    /**
     * One turn of one conversation, as a Chat Completions body.
     *
     * @param conversation the conversation's index
     * @param turn the turn's index in it
     */
    public record Turn(int conversation, int turn) {
        /** The request body: the system prompt, every earlier turn and its answer, the new question. */
        public String body() {
            StringBuilder messages = new StringBuilder();
            messages.append(message("system", systemPrompt(conversation % SYSTEM_PROMPTS)));
            for (int t = 0; t < turn; t++) {
                messages.append(',').append(message("user", user(conversation, t)));
                messages.append(',').append(message("assistant", assistant(conversation, t)));
            }
            messages.append(',').append(message("user", user(conversation, turn)));
            return "{\"model\":\"" + QualityGrid.MODEL + "\",\"max_tokens\":8,\"messages\":[" + messages + "]}";
        }

        private static String message(String role, String content) {
            return "{\"role\":\"" + role + "\",\"content\":\"" + content + "\"}";
        }
    }

    /** The turns in the order they are sent: waves of {@value #WAVE} conversations, round-robin within a wave. */
    public List<Turn> schedule() {
        List<Turn> turns = new ArrayList<>();
        for (int first = 0; first < conversations; first += WAVE) {
            int last = Math.min(conversations, first + WAVE);
            for (int t = 0; t < TURNS; t++) {
                for (int c = first; c < last; c++) {
                    turns.add(new Turn(c, t));
                }
            }
        }
        return turns;
    }

    static String systemPrompt(int index) {
        return QualityGrid.prompt("You are assistant number " + index + " of the grid", 6 * 1_024);
    }

    static String user(int conversation, int turn) {
        return QualityGrid.prompt("conversation " + conversation + " asks question " + turn, 320);
    }

    static String assistant(int conversation, int turn) {
        return QualityGrid.prompt("conversation " + conversation + " answer " + turn, 160);
    }

    /** Sums of the answers' usage. */
    private static final class Tally {
        private long prompt;
        private long cached;
        private int requests;

        void add(HttpResponse<String> response) {
            if (response.statusCode() != 200) {
                throw new AssertionError("status " + response.statusCode() + ": " + response.body());
            }
            JsonObject usage;
            try (JsonReader reader = Json.createReader(new StringReader(response.body()))) {
                usage = reader.readObject().getJsonObject("usage");
            }
            prompt += usage.getJsonNumber("prompt_tokens").longValue();
            JsonValue details = usage.get("prompt_tokens_details");
            if (details instanceof JsonObject object
                    && object.get("cached_tokens") instanceof jakarta.json.JsonNumber n) {
                cached += n.longValue();
            }
            requests++;
        }

        double hitRate() {
            return prompt == 0 ? 0 : cached / (double) prompt;
        }
    }
}

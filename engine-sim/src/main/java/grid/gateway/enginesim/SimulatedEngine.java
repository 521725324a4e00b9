package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The simulated engine behind every API: a request is validated against the context length, waits for a slot, sits
 * out any first-byte fault, looks its prompt up in the prefix cache, and spends its prefill time, so that
 *
 * <pre>
 *   time to first token ≈ queue wait + held first byte + (prompt tokens − cached tokens) / prefill rate
 *   then one output token every 1 / decode rate (the first comes with the prefill, as in vLLM: n tokens, n − 1 steps)
 * </pre>
 *
 * <p>The answer is deterministic filler: the words of the prompt's {@link Prompt#echo() echo text}, repeated to
 * the answer length ({@code answerTokens}, or the request's lower limit, in which case the answer is truncated).
 *
 * <p>Thread-safe: the queue, cache and metrics are; the rest is immutable.
 */
final class SimulatedEngine {
    private static final int MAX_ECHO_WORDS = 64;

    private final EngineSettings settings;
    private final EngineQueue queue;
    private final PrefixCache cache;
    private final EngineMetrics metrics;

    SimulatedEngine(EngineSettings settings, EngineQueue queue, PrefixCache cache, EngineMetrics metrics) {
        this.settings = requireNonNull(settings, "settings");
        this.queue = requireNonNull(queue, "queue");
        this.cache = requireNonNull(cache, "cache");
        this.metrics = requireNonNull(metrics, "metrics");
    }

    /**
     * Runs {@code prompt} up to its first token; the caller decodes, answers, and closes the run.
     *
     * @throws RequestRejected vLLM's validation 400 when the prompt or its output limit does not fit the context
     * @throws InterruptedException if interrupted while queued or paused (the slot is then given back)
     */
    Run start(Prompt prompt, FaultPlan faults) throws InterruptedException {
        PromptBlocks blocks = PromptBlocks.of(prompt.text(), prompt.model(), prompt.salt(), settings.blockSize());
        validate(blocks.tokens(), prompt.maxTokens());
        long arrived = System.nanoTime();
        int length = answerLength(prompt.maxTokens());
        AtomicReference<Runnable> holding = new AtomicReference<>();
        // The blocks are held as the slot is taken: a scrape that sees the request running sees its blocks too.
        EngineQueue.Slot slot =
                queue.admit(() -> holding.set(metrics.hold(ceilDiv(blocks.tokens() + length, settings.blockSize()))));
        double queued = (System.nanoTime() - arrived) / 1e9;
        Runnable held = holding.get();
        try {
            faults.holdFirstByte(settings.pacer());
            int cached = cache.admit(blocks);
            double prefill = (blocks.tokens() - cached) / settings.prefillTokensPerSecond();
            settings.pacer().pause(seconds(prefill));
            Usage usage = new Usage(blocks.tokens(), cached, length);
            boolean truncated = length < settings.answerTokens();
            metrics.served(new RequestHistograms.Served(
                    usage,
                    queued,
                    prefill,
                    (length - 1) / settings.decodeTokensPerSecond(),
                    truncated,
                    prompt.maxTokens().orElse(settings.maxModelLen() - blocks.tokens())));
            return new Run(
                    () -> {
                        held.run();
                        slot.close();
                    },
                    usage,
                    pieces(prompt.echo(), length),
                    truncated,
                    new Run.Timing(settings.pacer(), seconds(1 / settings.decodeTokensPerSecond())));
        } catch (InterruptedException | RuntimeException e) {
            held.run();
            slot.close();
            throw e;
        }
    }

    /** Refuses {@code prompt} now, before anything runs, if vLLM would refuse it ({@link #start} checks again). */
    void validate(Prompt prompt) {
        validate(tokens(prompt.text()), prompt.maxTokens());
    }

    /** Simulated tokens of {@code text}, as {@code count_tokens} and {@code input_tokens} report them. */
    int tokens(String text) {
        return PromptBlocks.tokensIn(text.getBytes(StandardCharsets.UTF_8).length);
    }

    /**
     * vLLM's checks of a request against {@code max_model_len}, in its words: an output limit beyond the context, or
     * a prompt that leaves no room for the output (vLLM tokenizes at most {@code max_model_len − limit + 1} tokens
     * of it, so it reports "at least" that many).
     */
    private void validate(int promptTokens, OptionalInt maxTokens) {
        int context = settings.maxModelLen();
        if (maxTokens.isPresent() && maxTokens.getAsInt() > context) {
            int limit = maxTokens.getAsInt();
            throw RequestRejected.badRequest(
                    "max_tokens=" + limit + " cannot be greater than max_model_len=max_total_tokens=" + context
                            + ". Please request fewer output tokens. (parameter=max_tokens, value=" + limit + ")",
                    "max_tokens");
        }
        int output = maxTokens.orElse(1);
        if (promptTokens + output > context) {
            int input = Math.min(promptTokens, context - output + 1);
            throw RequestRejected.badRequest(
                    "This model's maximum context length is " + context + " tokens. However, you requested " + output
                            + " output tokens and your prompt contains at least " + input
                            + " input tokens, for a total of at least " + (input + output)
                            + " tokens. Please reduce the length of the input prompt or the number of requested"
                            + " output tokens. (parameter=input_tokens, value=" + input + ")",
                    "input_tokens");
        }
    }

    private int answerLength(OptionalInt maxTokens) {
        int limit = maxTokens.orElse(Integer.MAX_VALUE);
        return Math.max(1, Math.min(settings.answerTokens(), limit));
    }

    static List<String> pieces(String echo, int length) {
        List<String> words = new ArrayList<>();
        for (String word : echo.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
            if (!word.isEmpty() && words.size() < MAX_ECHO_WORDS) {
                words.add(word);
            }
        }
        if (words.isEmpty()) {
            words.add("ok");
        }
        List<String> pieces = new ArrayList<>(length);
        for (int i = 0; i < length; i++) {
            String word = words.get(i % words.size());
            pieces.add(i == 0 ? word : " " + word);
        }
        return pieces;
    }

    private static int ceilDiv(int a, int b) {
        return (a + b - 1) / b;
    }

    private static Duration seconds(double seconds) {
        return Duration.ofNanos((long) Math.ceil(seconds * 1e9));
    }
}

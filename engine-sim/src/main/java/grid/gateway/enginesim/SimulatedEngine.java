package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;

/**
 * The simulated engine behind every API: a request waits for a slot, sits out any first-byte fault, looks its
 * prompt up in the prefix cache, and spends its prefill time, so that
 *
 * <pre>
 *   time to first token ≈ queue wait + held first byte + (prompt tokens − cached tokens) / prefill rate
 *   then one output token every 1 / decode rate
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
     * @throws InterruptedException if interrupted while queued or paused (the slot is then given back)
     */
    Run start(Prompt prompt, FaultPlan faults) throws InterruptedException {
        long arrived = System.nanoTime();
        EngineQueue.Slot slot = queue.admit();
        double queued = (System.nanoTime() - arrived) / 1e9;
        try {
            faults.holdFirstByte(settings.pacer());
            PromptBlocks blocks = PromptBlocks.of(prompt.text(), prompt.model(), prompt.salt());
            int cached = cache.admit(blocks);
            double prefill = (blocks.tokens() - cached) / settings.prefillTokensPerSecond();
            settings.pacer().pause(seconds(prefill));
            int length = answerLength(prompt.maxTokens());
            Usage usage = new Usage(blocks.tokens(), cached, length);
            metrics.served(
                    usage,
                    new EngineMetrics.RequestSeconds(
                            queued, prefill, prefill + length / settings.decodeTokensPerSecond()));
            return new Run(
                    slot,
                    usage,
                    pieces(prompt.echo(), length),
                    length < settings.answerTokens(),
                    new Run.Timing(settings.pacer(), seconds(1 / settings.decodeTokensPerSecond())));
        } catch (InterruptedException | RuntimeException e) {
            slot.close();
            throw e;
        }
    }

    /** Simulated tokens of {@code text}, as {@code count_tokens} and {@code input_tokens} report them. */
    int tokens(String text) {
        return PromptBlocks.tokensIn(text.getBytes(StandardCharsets.UTF_8).length);
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

    private static Duration seconds(double seconds) {
        return Duration.ofNanos((long) Math.ceil(seconds * 1e9));
    }
}

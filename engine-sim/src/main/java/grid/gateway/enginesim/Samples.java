package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import jakarta.json.JsonObject;
import org.jspecify.annotations.Nullable;

/**
 * The {@code n} choices of one prompt (Chat Completions and Completions {@code n}): as vLLM's V1 engine fans a
 * request with {@code n} above 1 out into that many engine requests, the simulator runs the prompt once per choice,
 * one after the other (so a later choice finds the earlier one's blocks in the prefix cache), one run at a time.
 * The usage of all of them is vLLM's ({@code testdata/vllm/extra_cached_responses_anthropic.json},
 * {@code chat_n2_usage}): the prompt and its cached tokens once, the output of every choice.
 *
 * <p>Not thread-safe; one per prompt of a request.
 */
final class Samples implements AutoCloseable {
    private final SimulatedEngine engine;
    private final Prompt prompt;
    private final FaultPlan faults;
    private final int count;
    private @Nullable Run run;
    private int index;
    private Usage usage;

    /** Starts the first of {@code count} choices of {@code prompt} (up to its first token). */
    Samples(SimulatedEngine engine, Prompt prompt, FaultPlan faults, int count) throws InterruptedException {
        this.engine = requireNonNull(engine, "engine");
        this.prompt = requireNonNull(prompt, "prompt");
        this.faults = requireNonNull(faults, "faults");
        this.count = count;
        Run first = engine.start(prompt, faults);
        this.run = first;
        this.usage = first.usage();
    }

    /**
     * The body's {@code n}: how many choices to answer, 1 when absent; below 1 is refused in vLLM's words, another
     * type as FastAPI refuses it.
     */
    static int requested(JsonObject body) {
        int n = JsonText.integer(body, "n").orElse(1);
        if (n < 1) {
            throw RequestRejected.badRequest("n must be at least 1, got " + n + ".", "n");
        }
        return n;
    }

    /** How many choices. */
    int count() {
        return count;
    }

    /** The index of the running choice, from 0. */
    int index() {
        return index;
    }

    /** The running choice. */
    Run run() {
        return requireNonNull(run, "run: every choice has run");
    }

    /** Closes the running choice and starts the next; false, with nothing running, after the last. */
    boolean next() throws InterruptedException {
        close();
        if (index + 1 >= count) {
            return false;
        }
        Run started = engine.start(prompt, faults);
        index++;
        run = started;
        usage = new Usage(
                usage.promptTokens(),
                usage.cachedTokens(),
                usage.outputTokens() + started.usage().outputTokens());
        return true;
    }

    /** The usage of the choices started so far: the prompt once, every choice's output. */
    Usage usage() {
        return usage;
    }

    /** Gives the running choice's slot back (once). */
    @Override
    public void close() {
        Run running = run;
        run = null;
        if (running != null) {
            running.close();
        }
    }
}

package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * vLLM's per-request histograms, in the order its page lists them, fed once per request with the simulator's
 * modeled durations (see {@link EngineMetrics}).
 *
 * <p>Thread-safe: each histogram locks its own counts.
 */
final class RequestHistograms {
    /**
     * One request done with its prefill.
     *
     * @param usage its prompt, cached and output tokens
     * @param queued seconds it waited for a slot
     * @param prefill seconds computing its uncached prompt tokens
     * @param decode seconds generating its output after the first token (one decode step a token after the first)
     * @param truncated whether the output stopped at the request's limit
     * @param maxTokens the output limit the request ran with
     */
    record Served(Usage usage, double queued, double prefill, double decode, boolean truncated, int maxTokens) {
        Served {
            requireNonNull(usage, "usage");
        }
    }

    private final Histogram promptTokens =
            new Histogram("vllm:request_prompt_tokens", VllmHelp.PROMPT_TOKENS, Histogram.REQUEST_TOKENS);
    private final Histogram generationTokens =
            new Histogram("vllm:request_generation_tokens", VllmHelp.GENERATION_TOKENS, Histogram.REQUEST_TOKENS);
    private final Histogram iterationTokens =
            new Histogram("vllm:iteration_tokens_total", VllmHelp.ITERATION_TOKENS, Histogram.STEP_TOKENS);
    private final Histogram maxGenerationTokens = new Histogram(
            "vllm:request_max_num_generation_tokens", VllmHelp.MAX_GENERATION_TOKENS, Histogram.REQUEST_TOKENS);
    private final Histogram paramsN = new Histogram("vllm:request_params_n", VllmHelp.PARAMS_N, Histogram.PARAMS_N);
    private final Histogram paramsMaxTokens =
            new Histogram("vllm:request_params_max_tokens", VllmHelp.PARAMS_MAX_TOKENS, Histogram.REQUEST_TOKENS);
    private final Histogram firstToken =
            new Histogram("vllm:time_to_first_token_seconds", VllmHelp.FIRST_TOKEN, Histogram.FIRST_TOKEN_SECONDS);
    private final Histogram interToken =
            new Histogram("vllm:inter_token_latency_seconds", VllmHelp.INTER_TOKEN, Histogram.TOKEN_SECONDS);
    private final Histogram perOutputToken = new Histogram(
            "vllm:request_time_per_output_token_seconds", VllmHelp.PER_OUTPUT_TOKEN, Histogram.TOKEN_SECONDS);
    private final Histogram e2e =
            new Histogram("vllm:e2e_request_latency_seconds", VllmHelp.E2E, Histogram.REQUEST_SECONDS);
    private final Histogram queueTime =
            new Histogram("vllm:request_queue_time_seconds", VllmHelp.QUEUE_TIME, Histogram.REQUEST_SECONDS);
    private final Histogram inferenceTime =
            new Histogram("vllm:request_inference_time_seconds", VllmHelp.INFERENCE_TIME, Histogram.REQUEST_SECONDS);
    private final Histogram prefillTime =
            new Histogram("vllm:request_prefill_time_seconds", VllmHelp.PREFILL_TIME, Histogram.REQUEST_SECONDS);
    private final Histogram decodeTime =
            new Histogram("vllm:request_decode_time_seconds", VllmHelp.DECODE_TIME, Histogram.REQUEST_SECONDS);
    private final Histogram prefillKvComputed = new Histogram(
            "vllm:request_prefill_kv_computed_tokens", VllmHelp.PREFILL_KV_COMPUTED, Histogram.REQUEST_TOKENS);

    private final List<Histogram> all = List.of(
            promptTokens,
            generationTokens,
            iterationTokens,
            maxGenerationTokens,
            paramsN,
            paramsMaxTokens,
            firstToken,
            interToken,
            perOutputToken,
            e2e,
            queueTime,
            inferenceTime,
            prefillTime,
            decodeTime,
            prefillKvComputed);

    void observe(Served served) {
        Usage usage = served.usage();
        int output = usage.outputTokens();
        // vLLM's decode time runs from the first token to the last: its gaps are the tokens after the first.
        double perToken = output > 1 ? served.decode() / (output - 1) : 0;
        promptTokens.observe(usage.promptTokens());
        generationTokens.observe(output);
        // One step prefills the prompt and yields the first token; each further token is a step of one.
        iterationTokens.observe(usage.promptTokens() + 1.0);
        if (output > 1) {
            iterationTokens.observe(1, output - 1L);
            interToken.observe(perToken, output - 1L);
        }
        maxGenerationTokens.observe(served.maxTokens());
        paramsN.observe(1);
        paramsMaxTokens.observe(served.maxTokens());
        firstToken.observe(served.queued() + served.prefill());
        perOutputToken.observe(perToken);
        e2e.observe(served.queued() + served.prefill() + served.decode());
        queueTime.observe(served.queued());
        inferenceTime.observe(served.prefill() + served.decode());
        prefillTime.observe(served.prefill());
        decodeTime.observe(served.decode());
        prefillKvComputed.observe(usage.promptTokens() - usage.cachedTokens());
    }

    void write(Exposition out) {
        all.forEach(h -> h.write(out));
    }
}

package grid.gateway.enginesim;

import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;

/**
 * The usage objects of each API, as vLLM writes them ({@code testdata/vllm/README.md}, "Usage and cached tokens"):
 *
 * <pre>
 *   Chat Completions, Completions   prompt_tokens, total_tokens, completion_tokens, prompt_tokens_details:
 *                                   {cached_tokens} only with prompt-token details on and cached tokens above 0;
 *                                   else null in a plain answer and absent from a stream's usage chunk
 *   Responses                       input_tokens_details.cached_tokens always, 0 included
 *   Anthropic Messages              input_tokens (all prompt tokens) and output_tokens only: a cache hit is never told
 * </pre>
 *
 * <p>Stateless and thread-safe.
 */
final class UsageJson {
    private UsageJson() {}

    /** The usage of a plain Chat Completions or Completions answer. */
    static JsonObject openAi(Usage usage, ApiSurface api) {
        JsonObjectBuilder json = counts(usage.promptTokens(), usage.outputTokens());
        if (api.reportsCachedTokens(usage.cachedTokens())) {
            json.add("prompt_tokens_details", cached(usage));
        } else {
            json.addNull("prompt_tokens_details");
        }
        return json.build();
    }

    /** The usage of a stream's final usage chunk (with {@code stream_options.include_usage}). */
    static JsonObject openAiChunk(Usage usage, ApiSurface api) {
        JsonObjectBuilder json = counts(usage.promptTokens(), usage.outputTokens());
        if (api.reportsCachedTokens(usage.cachedTokens())) {
            json.add("prompt_tokens_details", cached(usage));
        }
        return json.build();
    }

    /** The running usage every chunk carries with {@code stream_options.continuous_usage_stats}. */
    static JsonObject continuous(int promptTokens, int outputTokens) {
        return counts(promptTokens, outputTokens).build();
    }

    /** The usage of a Responses object. */
    static JsonObject responses(Usage usage) {
        return JsonText.object()
                .add("input_tokens", usage.promptTokens())
                .add(
                        "input_tokens_details",
                        JsonText.object()
                                .add("cached_tokens", usage.cachedTokens())
                                .add("input_tokens_per_turn", JsonText.array())
                                .add("cached_tokens_per_turn", JsonText.array()))
                .add("output_tokens", usage.outputTokens())
                .add(
                        "output_tokens_details",
                        JsonText.object()
                                .add("reasoning_tokens", 0)
                                .add("tool_output_tokens", 0)
                                .add("output_tokens_per_turn", JsonText.array())
                                .add("tool_output_tokens_per_turn", JsonText.array()))
                .add("total_tokens", usage.totalTokens())
                .build();
    }

    /** The usage of an Anthropic message: every prompt token as input, cached or not. */
    static JsonObject anthropic(Usage usage, int outputTokens) {
        return JsonText.object()
                .add("input_tokens", usage.promptTokens())
                .add("output_tokens", outputTokens)
                .build();
    }

    private static JsonObjectBuilder counts(int promptTokens, int outputTokens) {
        return JsonText.object()
                .add("prompt_tokens", promptTokens)
                .add("total_tokens", promptTokens + outputTokens)
                .add("completion_tokens", outputTokens);
    }

    private static JsonObject cached(Usage usage) {
        return JsonText.object().add("cached_tokens", usage.cachedTokens()).build();
    }
}

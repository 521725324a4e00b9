package grid.gateway.enginesim;

/**
 * What the simulator's API surface does where engines differ: {@link #VLLM}, the default, is what a vLLM server
 * started with {@code --enable-prompt-tokens-details} and {@code VLLM_ENABLE_RESPONSES_API_STORE=1} does
 * ({@code testdata/vllm/} holds the recordings); the two additions are OpenAI features vLLM lacks that the gateway
 * forwards and its own tests exercise.
 *
 * <p>Immutable.
 *
 * @param promptTokensDetails report {@code usage.prompt_tokens_details.cached_tokens} in Chat Completions and
 *     Completions when it is above 0, as {@code --enable-prompt-tokens-details} does; off, it is never there (in
 *     both cases {@code prompt_tokens_details} is {@code null} in a plain answer and absent from a stream's usage
 *     chunk when nothing is reported); default true
 * @param resetAfterValidationError answer a request vLLM refuses while validating it (an unknown model, a missing
 *     field, a prompt longer than the context) with {@code Connection: close} and close the connection after the
 *     answer, as vLLM's server does; off, the answer keeps the connection open; default true
 * @param conversations serve the Conversations API ({@code /v1/conversations…}) and read which conversation a
 *     {@code POST /v1/responses} names; vLLM answers 404 and ignores that field; default false
 * @param deleteStoredResponses serve {@code DELETE /v1/responses/{id}}; vLLM answers {@code 405
 *     {"detail":"Method Not Allowed"}}; default false
 * @param zeroCachedTokensReported with prompt-token details on, report {@code {"cached_tokens": 0}} when nothing was
 *     cached, as OpenAI's own API does, instead of vLLM's {@code null}; default false
 */
public record ApiSurface(
        boolean promptTokensDetails,
        boolean resetAfterValidationError,
        boolean conversations,
        boolean deleteStoredResponses,
        boolean zeroCachedTokensReported) {

    /** vLLM's own surface, as recorded. */
    public static final ApiSurface VLLM = new ApiSurface(true, true, false, false, false);

    /** This surface plus the OpenAI features vLLM lacks: the Conversations API and deleting a stored response. */
    public ApiSurface withOpenAiAdditions() {
        return withConversations().withStoredResponseDelete();
    }

    /** This surface with the Conversations API. */
    public ApiSurface withConversations() {
        return new ApiSurface(
                promptTokensDetails, resetAfterValidationError, true, deleteStoredResponses, zeroCachedTokensReported);
    }

    /** This surface with {@code DELETE /v1/responses/{id}}. */
    public ApiSurface withStoredResponseDelete() {
        return new ApiSurface(
                promptTokensDetails, resetAfterValidationError, conversations, true, zeroCachedTokensReported);
    }

    /** This surface without {@code prompt_tokens_details} (vLLM started without the option). */
    public ApiSurface withoutPromptTokensDetails() {
        return new ApiSurface(false, resetAfterValidationError, conversations, deleteStoredResponses, false);
    }

    /** This surface with validation errors answered on a connection that stays open. */
    public ApiSurface withoutResetAfterValidationError() {
        return new ApiSurface(
                promptTokensDetails, false, conversations, deleteStoredResponses, zeroCachedTokensReported);
    }

    /** This surface reporting {@code cached_tokens: 0} rather than nothing, as OpenAI's API does (vLLM does not). */
    public ApiSurface withZeroCachedTokensReported() {
        return new ApiSurface(true, resetAfterValidationError, conversations, deleteStoredResponses, true);
    }

    /** Whether a Chat Completions or Completions usage carries {@code prompt_tokens_details} for {@code cached}. */
    boolean reportsCachedTokens(int cached) {
        return promptTokensDetails && (cached > 0 || zeroCachedTokensReported);
    }
}

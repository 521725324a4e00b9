package grid.gateway.sim;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.keyer.PromptKeys;

/**
 * One request of a session, prepared once and replayed by every run.
 *
 * <p>Thread-safe (effectively immutable: nothing writes the block array after construction).
 *
 * @param keys what the gateway's {@code PromptKeyer} made of the request body
 * @param blocks the engine's block hashes of the prompt followed by the answer (full blocks only)
 * @param promptTokens the prompt's length in engine tokens
 * @param outputTokens the answer's length in tokens
 * @param thinkSeconds the client's pause between the previous turn's answer and this request (0 for a first turn)
 * @param idealUncachedTokens the prompt tokens no earlier request of the trace shared: its prefill with an infinite
 *     cache and perfect routing
 */
public record Turn(
        PromptKeys keys,
        long[] blocks,
        int promptTokens,
        int outputTokens,
        double thinkSeconds,
        int idealUncachedTokens) {

    public Turn {
        requireNonNull(keys, "keys");
        requireNonNull(blocks, "blocks");
    }

    /**
     * The most prompt blocks a cache hit may cover: the engine always computes the prompt's last token, so a prompt
     * of exactly {@code k} full blocks can hit at most {@code k - 1}.
     */
    public int maxHitBlocks() {
        return Math.min(blocks.length, (promptTokens - 1) / EngineBlocks.BLOCK_TOKENS);
    }
}

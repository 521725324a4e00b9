package grid.gateway.enginesim;

/**
 * Token counts of one answer.
 *
 * <p>Immutable.
 *
 * @param promptTokens simulated tokens of the rendered prompt
 * @param cachedTokens prompt tokens found in the prefix cache, a multiple of the block size
 * @param outputTokens tokens generated
 */
record Usage(int promptTokens, int cachedTokens, int outputTokens) {
    Usage {
        if (promptTokens < 0 || cachedTokens < 0 || cachedTokens > promptTokens || outputTokens < 0) {
            throw new IllegalArgumentException("usage: " + promptTokens + "/" + cachedTokens + "/" + outputTokens);
        }
    }

    int totalTokens() {
        return promptTokens + outputTokens;
    }
}

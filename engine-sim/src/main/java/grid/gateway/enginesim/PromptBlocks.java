package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Optional;

/**
 * The simulator's stand-in for vLLM's block hashes (docs/design.md §A6.3): the rendered prompt is cut into
 * "tokens" of {@value #BYTES_PER_TOKEN} bytes and blocks of the engine's block size (vLLM's {@code block_size}: 16
 * tokens on most GPUs, 128 on the CPU backend); only full blocks are
 * hashed, each as {@code sha256(parent hash, block bytes, extra)} cut to 64 bits, where {@code extra} is the model
 * and the {@code cache_salt} and is added to the first block only, so the chain carries both into every later
 * block. Requests with another model or salt share no block.
 *
 * <p>Immutable.
 */
final class PromptBlocks {
    /** Tokens per block, vLLM's usual block size on GPUs (and the simulator's default). */
    static final int BLOCK_TOKENS = 16;
    /** Bytes of rendered prompt per simulated token. */
    static final int BYTES_PER_TOKEN = 4;

    private final int tokens;
    private final int blockTokens;
    private final long[] hashes;

    private PromptBlocks(int tokens, int blockTokens, long[] hashes) {
        this.tokens = tokens;
        this.blockTokens = blockTokens;
        this.hashes = hashes;
    }

    /** The blocks of {@value #BLOCK_TOKENS} tokens of {@code prompt} for {@code model}, salted with {@code salt}. */
    static PromptBlocks of(String prompt, String model, Optional<String> salt) {
        return of(prompt, model, salt, BLOCK_TOKENS);
    }

    /** The blocks of {@code blockTokens} tokens of {@code prompt} for {@code model}, salted with {@code salt}. */
    static PromptBlocks of(String prompt, String model, Optional<String> salt, int blockTokens) {
        requireNonNull(model, "model");
        requireNonNull(salt, "salt");
        if (blockTokens <= 0) {
            throw new IllegalArgumentException("blockTokens: " + blockTokens + " (expected: > 0)");
        }
        int blockBytes = blockTokens * BYTES_PER_TOKEN;
        byte[] bytes = prompt.getBytes(StandardCharsets.UTF_8);
        int tokens = tokensIn(bytes.length);
        long[] hashes = new long[bytes.length / blockBytes];
        MessageDigest sha = sha256();
        byte[] extra = (model + "\u0000" + salt.map(s -> "salt:" + s).orElse("")).getBytes(StandardCharsets.UTF_8);
        long parent = 0;
        for (int i = 0; i < hashes.length; i++) {
            sha.update(ByteBuffer.allocate(Long.BYTES).putLong(parent).array());
            sha.update(bytes, i * blockBytes, blockBytes);
            if (i == 0) {
                sha.update(extra);
            }
            parent = ByteBuffer.wrap(sha.digest()).getLong();
            hashes[i] = parent;
        }
        return new PromptBlocks(tokens, blockTokens, hashes);
    }

    /** Simulated tokens in a text of {@code bytes} UTF-8 bytes: one per started group of four, at least one. */
    static int tokensIn(int bytes) {
        return Math.max(1, (bytes + BYTES_PER_TOKEN - 1) / BYTES_PER_TOKEN);
    }

    /** Simulated tokens of the whole prompt. */
    int tokens() {
        return tokens;
    }

    /** Tokens per block. */
    int blockTokens() {
        return blockTokens;
    }

    /** Full blocks. */
    int size() {
        return hashes.length;
    }

    long hash(int index) {
        return hashes[index];
    }

    /**
     * The most blocks a cache hit may cover: vLLM always computes the prompt's last token, so a prompt of exactly
     * {@code k} full blocks can hit at most {@code k - 1} of them.
     */
    int maxHitBlocks() {
        return Math.min(hashes.length, (tokens - 1) / blockTokens);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    @Override
    public String toString() {
        return "PromptBlocks[tokens=" + tokens + ", blocks=" + hashes.length + "]";
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof PromptBlocks that
                && tokens == that.tokens
                && blockTokens == that.blockTokens
                && Arrays.equals(hashes, that.hashes);
    }

    @Override
    public int hashCode() {
        return 31 * tokens + Arrays.hashCode(hashes);
    }
}

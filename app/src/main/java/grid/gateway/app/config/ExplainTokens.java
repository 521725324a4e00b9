package grid.gateway.app.config;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The bearer tokens the route explainer accepts, kept only as SHA-256 digests: a presented token is digested and
 * compared with every digest in constant time ({@link MessageDigest#isEqual}), so neither the comparison's time nor
 * a token's length tells how close a guess came, and no token stays in memory or reaches a log.
 *
 * <p>Thread-safe (immutable). Equal when the digests are.
 */
public final class ExplainTokens {
    /** The shortest token accepted: 16 characters, as the tag keys' 16 bytes. */
    public static final int MIN_TOKEN_CHARS = 16;

    private static final ExplainTokens NONE = new ExplainTokens(List.of());

    private final List<byte[]> digests;

    private ExplainTokens(List<byte[]> digests) {
        this.digests = List.copyOf(digests);
    }

    /** No token: nothing is accepted. */
    public static ExplainTokens none() {
        return NONE;
    }

    /**
     * The tokens in {@code text}: each non-empty line, without the white space around it.
     *
     * @throws IllegalArgumentException naming the line (never its content) of a token too short or holding white
     *     space, or when there is none
     */
    static ExplainTokens parse(String text) {
        List<byte[]> digests = new ArrayList<>();
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String token = lines[i].strip();
            if (token.isEmpty()) {
                continue;
            }
            if (token.length() < MIN_TOKEN_CHARS || token.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException("line " + (i + 1) + ": a token of at least " + MIN_TOKEN_CHARS
                        + " characters without white space");
            }
            digests.add(digest(token));
        }
        if (digests.isEmpty()) {
            throw new IllegalArgumentException(
                    "no token (expected: one token of at least " + MIN_TOKEN_CHARS + " characters a line)");
        }
        return new ExplainTokens(digests);
    }

    /** Whether {@code presented} is one of the tokens; every digest is compared, whichever matches. */
    public boolean accepts(String presented) {
        requireNonNull(presented, "presented");
        byte[] candidate = digest(presented);
        boolean accepted = false;
        for (byte[] digest : digests) {
            accepted |= MessageDigest.isEqual(digest, candidate);
        }
        return accepted;
    }

    /** How many tokens are accepted. */
    public int size() {
        return digests.size();
    }

    private static byte[] digest(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    @Override
    public boolean equals(@Nullable Object other) {
        if (!(other instanceof ExplainTokens that) || that.digests.size() != digests.size()) {
            return false;
        }
        for (int i = 0; i < digests.size(); i++) {
            if (!Arrays.equals(digests.get(i), that.digests.get(i))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        return digests.size();
    }

    @Override
    public String toString() {
        return "ExplainTokens[" + digests.size() + " tokens]";
    }
}

package grid.gateway.app.observe;

import grid.gateway.routing.text.JsonEscape;
import grid.gateway.routing.text.JsonListener;
import grid.gateway.routing.text.JsonTokenizer;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * {@link CachedTokens}' fast reader: one pass of the project's JSON tokenizer over the bytes, following member names
 * by byte offsets down the usage paths (a small trie of names), with no parser objects, no decoded text and no
 * events for the rest of the document. It answers only for a text the tokenizer finds {@link
 * JsonTokenizer.Outcome#VALID}; for any other the caller reads the text again with the jakarta.json streaming
 * parser, so every input gets that parser's answer (a text nested deeper than the tokenizer's limit, or with
 * malformed UTF-8, which the streaming parser reads leniently).
 *
 * <p>Not thread-safe; one per text.
 */
final class UsageScan implements JsonListener {
    private static final int OFF = -1;
    private static final int LEAF = -2;
    /** The deepest container on a path: {@code response.usage.input_tokens_details} opens at depth 3. */
    private static final int DEEPEST = 3;

    private static final byte[] USAGE = ascii("usage");
    private static final byte[] RESPONSE = ascii("response");
    private static final byte[] MESSAGE = ascii("message");
    private static final byte[] PROMPT_DETAILS = ascii("prompt_tokens_details");
    private static final byte[] INPUT_DETAILS = ascii("input_tokens_details");
    private static final byte[] CACHED = ascii("cached_tokens");
    private static final byte[] CACHE_READ = ascii("cache_read_input_tokens");

    /**
     * The trie of {@link CachedTokens}' paths: node {@code n}'s member names and the node each leads to. Node 0 is
     * the top-level object; 1 {@code usage}; 2 and 3 its two details objects; 4–6 {@code response.usage…}; 7–8
     * {@code message.usage}.
     */
    private static final byte[][][] NAMES = {
        {USAGE, RESPONSE, MESSAGE},
        {PROMPT_DETAILS, INPUT_DETAILS, CACHE_READ},
        {CACHED},
        {CACHED},
        {USAGE},
        {INPUT_DETAILS},
        {CACHED},
        {USAGE},
        {CACHE_READ},
    };

    private static final int[][] NEXT = {{1, 4, 7}, {2, 3, LEAF}, {LEAF}, {LEAF}, {5}, {6}, {LEAF}, {8}, {LEAF}};

    private final byte[] text;
    /** The trie node of the container open at each depth up to {@link #DEEPEST}; {@link #OFF} off every path. */
    private final int[] node = new int[DEEPEST + 1];
    /** Where the member name read last leads: a node, {@link #LEAF}, or {@link #OFF}. */
    private int pending = OFF;

    private boolean rootIsObject;
    private boolean usage;
    private OptionalLong found = OptionalLong.empty();

    private UsageScan(byte[] text) {
        this.text = text;
    }

    /**
     * The usage in {@code text[from, to)} by {@link CachedTokens}' rules, or null when the tokenizer does not find one
     * valid JSON text there (the caller then reads it with the streaming parser).
     */
    static CachedTokens.@Nullable UsageReading read(byte[] text, int from, int to) {
        UsageScan scan = new UsageScan(text);
        try {
            if (JsonTokenizer.tokenize(text, from, to, scan) != JsonTokenizer.Outcome.VALID) {
                return null;
            }
        } catch (NumberFormatException hugeExponent) {
            // BigDecimal refuses an exponent beyond an int, and so the streaming parser reported nothing at all.
            return CachedTokens.UsageReading.NONE;
        }
        return scan.rootIsObject
                ? new CachedTokens.UsageReading(scan.usage, scan.found)
                : CachedTokens.UsageReading.NONE;
    }

    @Override
    public void open(int at, boolean object, int depth) {
        if (depth == 0) {
            rootIsObject = object;
            node[0] = object ? 0 : OFF;
        } else if (depth <= DEEPEST) {
            node[depth] = object && onPath(depth) && pending != LEAF ? pending : OFF;
            usage |= isUsage(node[depth]);
        }
    }

    /** Whether trie node {@code n} is a usage object: {@code usage}, {@code response.usage}, {@code message.usage}. */
    private static boolean isUsage(int n) {
        return n == 1 || n == 5 || n == 8;
    }

    @Override
    public void name(int start, int end, boolean escaped, int depth) {
        pending = onPath(depth) ? child(node[depth - 1], start + 1, end - 1, escaped) : OFF;
    }

    @Override
    public void scalar(int start, int end, int depth) {
        if (pending == LEAF && onPath(depth)) {
            byte first = text[start];
            if (first == '-' || (first >= '0' && first <= '9')) {
                found = count(start, end);
            }
        }
    }

    /** Whether a member at {@code depth} sits in an object on a path. */
    private boolean onPath(int depth) {
        return depth >= 1 && depth - 1 <= DEEPEST && node[depth - 1] != OFF;
    }

    private int child(int parent, int start, int end, boolean escaped) {
        byte[][] names = NAMES[parent];
        byte @Nullable [] name = escaped ? JsonEscape.text(text, start, end).getBytes(StandardCharsets.UTF_8) : null;
        for (int i = 0; i < names.length; i++) {
            boolean same = name == null
                    ? Arrays.equals(text, start, end, names[i], 0, names[i].length)
                    : Arrays.equals(name, names[i]);
            if (same) {
                return NEXT[parent][i];
            }
        }
        return OFF;
    }

    /** A non-negative integer that fits a long, as the streaming parser's BigDecimal read it; else not reported. */
    private OptionalLong count(int start, int end) {
        if (end - start <= 18) {
            long value = 0;
            int i = start;
            while (i < end && text[i] >= '0' && text[i] <= '9') {
                value = value * 10 + (text[i] - '0');
                i++;
            }
            if (i == end) {
                return OptionalLong.of(value);
            }
        }
        return CachedTokens.count(new BigDecimal(new String(text, start, end - start, StandardCharsets.US_ASCII)));
    }

    private static byte[] ascii(String name) {
        return name.getBytes(StandardCharsets.US_ASCII);
    }
}

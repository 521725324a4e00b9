package grid.gateway.routing.keyer;

import java.util.Locale;

/**
 * Why a body got no block keys (docs/design.md §4); such a request routes on load alone and is still forwarded unchanged.
 *
 * <p>Stateless and thread-safe. {@link #label()} is the metric label value.
 */
public enum NoKeysReason {
    /**
     * The body is not valid JSON text (grammar, UTF-8, trailing bytes). Its model is still read as the engine's parser
     * (Python's {@code json}) reads it, where that parser reads the body ({@code EnginesModel}).
     */
    INVALID_JSON,
    /** The body is valid JSON but not an object. */
    NOT_AN_OBJECT,
    /** The model is missing, null or not a string (for a duplicated one: the last, as the engine reads it). */
    MISSING_MODEL,
    /** A Completions prompt given as token ids, or a prompt given as embeddings. */
    TOKEN_PROMPT,
    /** A content part, block or input item whose type the keyer does not know. */
    UNKNOWN_PART_TYPE,
    /** A field the keyer reads has a type the API does not allow (a number where messages belong). */
    UNEXPECTED_SHAPE,
    /**
     * The root object names {@code model} or {@code cache_salt} more than once. Parsers disagree on which copy counts
     * (vLLM's keeps the last, others the first or refuse), so the gateway keys on neither; the request is routed by
     * the last model, the one vLLM serves.
     */
    DUPLICATE_MEMBER,
    /** The body has no prompt text at all. */
    EMPTY_PROMPT,
    /**
     * The body exceeds a parser limit (nesting deeper than
     * {@link grid.gateway.routing.text.JsonTokenizer#MAX_DEPTH}). Its model is still read as the engine reads it.
     */
    PARSER_LIMIT,
    /** A defect in the keyer itself; never expected, counted so that it cannot hide. */
    KEYER_FAULT,
    /**
     * Keys could change no decision: at most one cluster of the grid serves the body's model, so the body was
     * validated and its model read but not walked or hashed (docs/design.md §4). Not a failure: the gateway does not
     * count it among the bodies it could not key.
     */
    ONE_CANDIDATE;

    /** Whether it is counted as a body the keyer could not key ({@link #ONE_CANDIDATE} is not). */
    public boolean counted() {
        return this != ONE_CANDIDATE;
    }

    /** The label value used in metrics: the constant's name in lower case. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}

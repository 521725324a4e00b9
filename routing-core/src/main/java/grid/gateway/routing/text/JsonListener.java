package grid.gateway.routing.text;

/**
 * What {@link JsonTokenizer} reports as it meets each token, by byte offsets into the text it reads.
 *
 * <p>Every range is {@code [start, end)}: a string's range includes its quotes, a container's opening event gives the
 * bracket's index and its closing event the index just after the closing bracket. {@code depth} counts the containers
 * around the token: 0 for the root value, 1 for a root member's name and its value (and for the root array's
 * elements); a container reports the depth it sits at, so the root object opens and closes at depth 0. Each member
 * name is followed by exactly one value event ({@link #string}, {@link #scalar} or {@link #open}) before any other.
 *
 * <p>Events arrive before the end of the text is checked: a listener keeps what it learnt only when the tokenizer
 * then answers {@link JsonTokenizer.Outcome#VALID}. Every method does nothing by default, so a listener overrides
 * only the events it needs.
 */
public interface JsonListener {
    /** Hears nothing: for a plain validity check. */
    JsonListener NONE = new JsonListener() {};

    /**
     * An object or array opens.
     *
     * @param at the index of its opening bracket
     * @param object true for an object, false for an array
     * @param depth the depth it sits at
     */
    default void open(int at, boolean object, int depth) {}

    /**
     * The container that opened last closes.
     *
     * @param end the index just after its closing bracket
     * @param depth the depth it sits at, as {@link #open} gave it
     */
    default void close(int end, int depth) {}

    /**
     * A member name, quotes included.
     *
     * @param escaped whether its content holds a backslash escape (then its bytes are not its text)
     * @param depth the depth of the member: 1 in the root object
     */
    default void name(int start, int end, boolean escaped, int depth) {}

    /**
     * A string value (an element or a member's value, never a name), quotes included.
     *
     * @param escaped whether its content holds a backslash escape
     */
    default void string(int start, int end, boolean escaped, int depth) {}

    /** A number, {@code true}, {@code false} or {@code null}: exactly its bytes. */
    default void scalar(int start, int end, int depth) {}
}

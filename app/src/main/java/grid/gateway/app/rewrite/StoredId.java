package grid.gateway.app.rewrite;

import static java.util.Objects.requireNonNull;

/**
 * One stored id a request body names, and where its text sits in the body.
 *
 * <p>Thread-safe (immutable). The value is the string's decoded text, so an id written with escapes reads as the
 * engine would read it.
 *
 * @param field the member that holds it
 * @param value the decoded string, whatever it holds (a tag, an engine id, anything a client sent)
 * @param start the index of the string's first content byte, just after its opening quote
 * @param end the index of its closing quote
 */
public record StoredId(StoredIdField field, String value, int start, int end) {
    public StoredId {
        requireNonNull(field, "field");
        requireNonNull(value, "value");
        if (start < 0 || end < start) {
            throw new IllegalArgumentException("range [" + start + ", " + end + ") is not a string's content");
        }
    }
}

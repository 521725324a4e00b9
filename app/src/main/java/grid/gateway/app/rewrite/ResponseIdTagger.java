package grid.gateway.app.rewrite;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.tag.IdKind;
import java.util.Arrays;
import java.util.BitSet;
import java.util.function.UnaryOperator;

/**
 * Tags the stored ids in one JSON answer of {@code /v1/responses…} or {@code /v1/conversations…} (docs/design.md §5): every
 * string value of a member named {@code id}, {@code previous_response_id} or {@code conversation}, in any letter
 * case as a client's parser may match it ({@link IdNames}: {@code ID}, {@code Conversation}), at any depth (so
 * {@code conversation.id} too), that starts with {@code resp_} or {@code conv_} as a client's parser reads it
 * (escapes decoded), becomes {@code tag.apply(value)} ({@link IdValue}). Every other byte stays as it was, so model
 * text that mentions {@code resp_…} is left alone: it is not such a member's value.
 *
 * <p>Contract, whatever the bytes: one linear pass plus the tag calls, and no exception. A body that is not one valid
 * JSON text (RFC 8259, strict UTF-8, at most 256 levels deep: the keyer's
 * {@link grid.gateway.routing.text.JsonTokenizer}) comes back unchanged. A value the tag function refuses with an
 * {@link IllegalArgumentException} is left as it is (the gateway's refuses none with an id prefix: an id no tag can
 * carry gets the tag's head anyway, and then names no cluster). A member of that name anywhere counts, including
 * inside user {@code metadata}.
 *
 * <p>Thread-safe if the tag function is; the caller binds the function to the cluster that served the answer.
 */
public final class ResponseIdTagger {
    private final UnaryOperator<String> tag;

    /**
     * Creates a tagger.
     *
     * @param tag maps an engine id ({@code resp_abc}) to its tag; it may refuse an id by throwing
     *     {@link IllegalArgumentException}, which leaves the id as it is
     */
    public ResponseIdTagger(UnaryOperator<String> tag) {
        this.tag = requireNonNull(tag, "tag");
    }

    /** The tag function: what {@link JsonIdStream} tags with when an event is too large to hold. */
    UnaryOperator<String> tagFunction() {
        return tag;
    }

    /**
     * {@code body} with its stored ids tagged; {@code body} itself when nothing changes. The length may differ, so
     * the caller sets {@code Content-Length} from the returned array.
     */
    public byte[] tagJson(byte[] body) {
        requireNonNull(body, "body");
        Edits edits = new Edits();
        collect(body, 0, body.length, edits);
        return edits.count() == 0 ? body : edits.apply(body, 0, body.length);
    }

    /**
     * Adds to {@code edits} the tagging of each stored id in the JSON text {@code b[from, to)}, at its absolute
     * offsets; adds nothing, and returns false, when the range is not one valid JSON text.
     */
    boolean collect(byte[] b, int from, int to, Edits edits) {
        Candidates found = new Candidates(b);
        if (!StoredIdScan.scan(b, from, to, IdNames.Match.ANY_CASE, found)) {
            return false;
        }
        for (int i = 0; i < found.count; i++) {
            int start = found.ranges[i * 2];
            int end = found.ranges[i * 2 + 1];
            byte[] tagged = IdValue.tagged(b, start, end, found.escaped.get(i), tag);
            if (tagged != null) {
                edits.add(start, end, tagged);
            }
        }
        return true;
    }

    /** The values the scan met that start with an id prefix as written, or hold an escape, in text order. */
    private static final class Candidates implements StoredIdScan.Listener {
        private final byte[] text;
        private int[] ranges = new int[8];
        private final BitSet escaped = new BitSet();
        private int count;

        Candidates(byte[] text) {
            this.text = text;
        }

        @Override
        public void member(StoredIdScan.Name name, StoredIdScan.Place place, int start, int end, boolean escaped) {
            if (!escaped && !IdKind.hasPrefix(text, start, end)) {
                return;
            }
            this.escaped.set(count, escaped);
            if (count * 2 == ranges.length) {
                ranges = Arrays.copyOf(ranges, ranges.length * 2);
            }
            ranges[count * 2] = start;
            ranges[count * 2 + 1] = end;
            count++;
        }
    }
}

package grid.gateway.app.rewrite;

import grid.gateway.routing.tag.IdKind;
import java.util.Arrays;

/**
 * The id tagging of one complete server-sent event: finds its {@code data} field lines and tags the JSON they carry.
 *
 * <p>A client joins an event's data lines with LF and parses the result, so several data lines are joined the same
 * way, tagged as one JSON text, and each replacement is mapped back into its own line (a JSON string cannot hold a
 * raw LF, so no replacement spans two lines). Comments, and the {@code event}, {@code id} and {@code retry} fields
 * pass unchanged here; data that is not one JSON text ({@code [DONE]}, a flaw), and an event whose other lines may
 * name an id ({@link #mayNameId}), are reported, for the caller to tag as it streams.
 *
 * <p>Stateless and thread-safe.
 */
final class SseEvent {
    private static final int DATA_LENGTH = 4;

    private SseEvent() {}

    /**
     * Adds to {@code edits} the tagging of the data in the event {@code b[from, to)}, at absolute offsets; false when
     * its data is not one valid JSON text or another of its lines may name an id (nothing added then).
     */
    static boolean collect(byte[] b, int from, int to, ResponseIdTagger tagger, Edits edits) {
        int[] values = new int[4];
        int count = 0;
        int q = from;
        while (q < to) {
            int lineEnd = q;
            while (lineEnd < to && b[lineEnd] != '\n' && b[lineEnd] != '\r') {
                lineEnd++;
            }
            int valueStart = dataValue(b, q, lineEnd);
            if (valueStart < 0 && mayNameId(b, q, lineEnd)) {
                return false;
            }
            if (valueStart >= 0) {
                if (count * 2 == values.length) {
                    values = Arrays.copyOf(values, values.length * 2);
                }
                values[count * 2] = valueStart;
                values[count * 2 + 1] = lineEnd;
                count++;
            }
            boolean crlf = lineEnd + 1 < to && b[lineEnd] == '\r' && b[lineEnd + 1] == '\n';
            q = lineEnd + (crlf ? 2 : 1);
        }
        if (count == 1) {
            return tagger.collect(b, values[0], values[1], edits);
        }
        return count == 0 || collectJoined(b, values, count, tagger, edits);
    }

    /**
     * Whether the line {@code b[from, to)}, not a {@code data} field, holds an id prefix or a backslash (an escape may
     * write one): a client that reads the body as JSON reads such lines, so they are tagged too, as text past a flaw
     * ({@link SseEventStream}). vLLM's lines hold none ({@code event: response.created}).
     */
    private static boolean mayNameId(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] == '\\' || (b[i] == '_' && i - from >= 4 && IdKind.hasPrefix(b, i - 4, i + 1))) {
                return true;
            }
        }
        return false;
    }

    /** Where the value of the line {@code b[start, end)} starts if it is a {@code data} field, else -1. */
    private static int dataValue(byte[] b, int start, int end) {
        if (end - start < DATA_LENGTH
                || b[start] != 'd'
                || b[start + 1] != 'a'
                || b[start + 2] != 't'
                || b[start + 3] != 'a') {
            return -1;
        }
        int colon = start + DATA_LENGTH;
        if (colon == end) {
            return end; // "data" alone: an empty value
        }
        if (b[colon] != ':') {
            return -1;
        }
        return colon + 1 < end && b[colon + 1] == ' ' ? colon + 2 : colon + 1;
    }

    private static boolean collectJoined(byte[] b, int[] values, int count, ResponseIdTagger tagger, Edits edits) {
        int length = count - 1;
        for (int i = 0; i < count; i++) {
            length += values[i * 2 + 1] - values[i * 2];
        }
        byte[] joined = new byte[length];
        int[] joinedStarts = new int[count];
        int w = 0;
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                joined[w++] = '\n';
            }
            joinedStarts[i] = w;
            int valueLength = values[i * 2 + 1] - values[i * 2];
            System.arraycopy(b, values[i * 2], joined, w, valueLength);
            w += valueLength;
        }
        Edits inJoined = new Edits();
        boolean json = tagger.collect(joined, 0, length, inJoined);
        int line = 0;
        for (int e = 0; e < inJoined.count(); e++) {
            while (line + 1 < count && joinedStarts[line + 1] <= inJoined.start(e)) {
                line++;
            }
            int shift = values[line * 2] - joinedStarts[line];
            edits.add(inJoined.start(e) + shift, inJoined.end(e) + shift, inJoined.replacement(e));
        }
        return json;
    }
}

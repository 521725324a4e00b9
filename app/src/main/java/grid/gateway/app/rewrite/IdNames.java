package grid.gateway.app.rewrite;

import grid.gateway.routing.text.JsonEscape;
import java.nio.charset.StandardCharsets;

/**
 * Reads a JSON member name as one of the names whose string values hold stored ids ({@code id},
 * {@code previous_response_id}, {@code conversation}), escapes decoded, in one of two ways:
 *
 * <ul>
 *   <li>{@link Match#EXACT}: as the engine's parser reads a request (Python's {@code json}, then pydantic: by exact
 *       name).
 *   <li>{@link Match#ANY_CASE}: as any client's parser may read an answer: Go's {@code encoding/json} matches a struct
 *       field's name case-insensitively (Unicode simple folding: {@code ſ} reads as {@code s}), .NET's Json.NET and
 *       {@code System.Text.Json} under web defaults by ordinal ignore-case ({@code ı} reads as {@code i}). Java's
 *       {@link String#equalsIgnoreCase} accepts every one of these spellings. A C parser such as cJSON keeps a name
 *       as a C string, so an escaped NUL ends it: the name is read up to its first NUL.
 * </ul>
 *
 * <p>Stateless and thread-safe. Never throws on any bytes.
 */
final class IdNames {
    /** An escaped name longer than this (each char at most six bytes) cannot spell a reported name. */
    static final int MAX_WRITTEN = 6 * 20;

    private static final String[] NAMES = {"id", "previous_response_id", "conversation"};
    private static final StoredIdScan.Name[] KINDS = {
        StoredIdScan.Name.ID, StoredIdScan.Name.PREVIOUS_RESPONSE_ID, StoredIdScan.Name.CONVERSATION
    };

    /** How names are compared. */
    enum Match {
        /** Byte for byte once decoded: how the engine reads a request. */
        EXACT,
        /** Ignoring case as any client's parser may: how a client reads an answer. */
        ANY_CASE
    }

    private IdNames() {}

    /**
     * The name the content {@code b[start, end)} of a member name's string spells, or {@link StoredIdScan.Name#OTHER}.
     *
     * @param escaped whether the content holds a backslash escape
     */
    static StoredIdScan.Name classify(byte[] b, int start, int end, boolean escaped, Match match) {
        int length = end - start;
        if (length < 2 || length > MAX_WRITTEN) {
            return StoredIdScan.Name.OTHER;
        }
        if (!escaped && isAscii(b, start, end)) {
            for (int n = 0; n < NAMES.length; n++) {
                if (asciiEquals(b, start, end, NAMES[n], match == Match.ANY_CASE)) {
                    return KINDS[n];
                }
            }
            return StoredIdScan.Name.OTHER;
        }
        String text = escaped ? JsonEscape.text(b, start, end) : new String(b, start, length, StandardCharsets.UTF_8);
        int nul = text.indexOf('\0');
        if (match == Match.ANY_CASE && nul >= 0) {
            text = text.substring(0, nul); // a C parser (cJSON) keeps a name as a C string: "id\u0000x" is its "id"
        }
        for (int n = 0; n < NAMES.length; n++) {
            if (match == Match.ANY_CASE ? NAMES[n].equalsIgnoreCase(text) : NAMES[n].equals(text)) {
                return KINDS[n];
            }
        }
        return StoredIdScan.Name.OTHER;
    }

    private static boolean isAscii(byte[] b, int start, int end) {
        for (int i = start; i < end; i++) {
            if (b[i] < 0) {
                return false;
            }
        }
        return true;
    }

    private static boolean asciiEquals(byte[] b, int start, int end, String name, boolean anyCase) {
        if (end - start != name.length()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            int c = b[start + i];
            if (anyCase && c >= 'A' && c <= 'Z') {
                c += 'a' - 'A';
            }
            if (c != name.charAt(i)) {
                return false;
            }
        }
        return true;
    }
}

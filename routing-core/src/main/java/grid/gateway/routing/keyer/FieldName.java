package grid.gateway.routing.keyer;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * A JSON member name the walkers look for, held as the bytes it has in an unescaped body.
 *
 * <p>Thread-safe (immutable).
 */
final class FieldName {
    static final FieldName MODEL = new FieldName(0, "model");
    static final FieldName CACHE_SALT = new FieldName(1, "cache_salt");
    static final FieldName TOOLS = new FieldName(2, "tools");
    static final FieldName MESSAGES = new FieldName(3, "messages");
    static final FieldName SYSTEM = new FieldName(4, "system");
    static final FieldName INSTRUCTIONS = new FieldName(5, "instructions");
    static final FieldName INPUT = new FieldName(6, "input");
    static final FieldName PROMPT = new FieldName(7, "prompt");
    static final FieldName PROMPT_EMBEDS = new FieldName(8, "prompt_embeds");
    static final FieldName ROLE = new FieldName(9, "role");
    static final FieldName CONTENT = new FieldName(10, "content");
    static final FieldName TYPE = new FieldName(11, "type");
    static final FieldName TEXT = new FieldName(12, "text");
    static final FieldName UUID = new FieldName(13, "uuid");
    static final FieldName NAME = new FieldName(14, "name");
    static final FieldName ARGUMENTS = new FieldName(15, "arguments");
    static final FieldName TOOL_CALLS = new FieldName(16, "tool_calls");
    static final FieldName FUNCTION = new FieldName(17, "function");
    static final FieldName CUSTOM = new FieldName(18, "custom");
    static final FieldName OUTPUT = new FieldName(19, "output");
    static final FieldName ID = new FieldName(20, "id");
    static final FieldName CACHE_CONTROL = new FieldName(21, "cache_control");
    static final FieldName IMAGE_URL = new FieldName(22, "image_url");
    static final FieldName INPUT_AUDIO = new FieldName(23, "input_audio");
    static final FieldName AUDIO_URL = new FieldName(24, "audio_url");
    static final FieldName VIDEO_URL = new FieldName(25, "video_url");
    static final FieldName IMAGE_EMBEDS = new FieldName(26, "image_embeds");
    static final FieldName AUDIO_EMBEDS = new FieldName(27, "audio_embeds");
    static final FieldName FILE = new FieldName(28, "file");
    static final FieldName FILE_ID = new FieldName(29, "file_id");
    static final FieldName FILE_DATA = new FieldName(30, "file_data");
    static final FieldName FILE_URL = new FieldName(31, "file_url");
    static final FieldName DATA = new FieldName(32, "data");
    static final FieldName SOURCE = new FieldName(33, "source");
    static final FieldName REFUSAL = new FieldName(34, "refusal");
    static final FieldName TOOL_NAME = new FieldName(35, "tool_name");
    static final FieldName URL = new FieldName(36, "url");
    static final FieldName CALL_ID = new FieldName(37, "call_id");

    /** Every name the walkers look up, each at its {@link #index()}: members with other names are never recorded. */
    static final List<FieldName> ALL = List.of(
            MODEL,
            CACHE_SALT,
            TOOLS,
            MESSAGES,
            SYSTEM,
            INSTRUCTIONS,
            INPUT,
            PROMPT,
            PROMPT_EMBEDS,
            ROLE,
            CONTENT,
            TYPE,
            TEXT,
            UUID,
            NAME,
            ARGUMENTS,
            TOOL_CALLS,
            FUNCTION,
            CUSTOM,
            OUTPUT,
            ID,
            CACHE_CONTROL,
            IMAGE_URL,
            INPUT_AUDIO,
            AUDIO_URL,
            VIDEO_URL,
            IMAGE_EMBEDS,
            AUDIO_EMBEDS,
            FILE,
            FILE_ID,
            FILE_DATA,
            FILE_URL,
            DATA,
            SOURCE,
            REFUSAL,
            TOOL_NAME,
            URL,
            CALL_ID);

    /** The longest name, in bytes. */
    private static final int LONGEST = 13;
    /** An escaped spelling takes at most six bytes a char (a backslash, {@code u} and four hex digits). */
    private static final int LONGEST_ESCAPED = 6 * LONGEST;

    /** Built after {@link #ALL}, which it reads. */
    private static final FieldName[][] BY_LENGTH = byLength();

    private final int index;
    private final String name;
    private final byte[] bytes;

    private FieldName(int index, String name) {
        this.index = index;
        this.name = name;
        this.bytes = name.getBytes(StandardCharsets.UTF_8);
    }

    /** This name's position in {@link #ALL}. */
    int index() {
        return index;
    }

    /**
     * The index in {@link #ALL} of the name the JSON string {@code text[quote, end)} spells (its opening quote to
     * just after its closing quote, as the validator accepted it), escapes decoded; -1 for any other name. Allocates
     * nothing: it runs once per object member.
     */
    static int indexOf(byte[] text, int quote, int end) {
        int from = quote + 1;
        int to = end - 1;
        int length = to - from;
        if (length > LONGEST_ESCAPED) {
            return -1;
        }
        if (!hasBackslash(text, from, to)) {
            // The common case, a name as it is spelled: only the names of its length can match, byte for byte.
            if (length > LONGEST) {
                return -1;
            }
            for (FieldName name : BY_LENGTH[length]) {
                if (Arrays.equals(text, from, to, name.bytes, 0, length)) {
                    return name.index;
                }
            }
            return -1;
        }
        // An indexed loop: an iterator per member would be garbage only the JIT may remove.
        for (int i = 0; i < ALL.size(); i++) {
            if (ALL.get(i).spelledBy(text, from, to)) {
                return i;
            }
        }
        return -1;
    }

    private static boolean hasBackslash(byte[] text, int from, int to) {
        for (int q = from; q < to; q++) {
            if (text[q] == '\\') {
                return true;
            }
        }
        return false;
    }

    /** {@link #ALL} by length in bytes: {@code BY_LENGTH[n]} holds the names of {@code n} bytes. */
    private static FieldName[][] byLength() {
        if (ALL.stream().anyMatch(f -> f.bytes.length > LONGEST)) {
            throw new IllegalStateException("a field name is longer than LONGEST");
        }
        FieldName[][] table = new FieldName[LONGEST + 1][];
        for (int n = 0; n <= LONGEST; n++) {
            int length = n;
            table[n] = ALL.stream().filter(f -> f.bytes.length == length).toArray(FieldName[]::new);
        }
        return table;
    }

    /** Whether the string content {@code text[from, to)} decodes to this name (names are ASCII). */
    private boolean spelledBy(byte[] text, int from, int to) {
        int q = from;
        int i = 0;
        while (q < to) {
            if (i == bytes.length) {
                return false;
            }
            int c = text[q];
            if (c == '\\') {
                byte e = text[q + 1];
                if (e == 'u') {
                    c = 0;
                    for (int k = q + 2; k < q + 6; k++) {
                        c = c * 16 + Character.digit(text[k], 16);
                    }
                    q += 6;
                } else {
                    c = switch (e) {
                        case 'b' -> '\b';
                        case 'f' -> '\f';
                        case 'n' -> '\n';
                        case 'r' -> '\r';
                        case 't' -> '\t';
                        default -> e;
                    };
                    q += 2;
                }
            } else {
                q++;
            }
            if (c != bytes[i++]) {
                return false;
            }
        }
        return i == bytes.length;
    }

    /** The name's UTF-8 bytes; callers must not modify them. */
    byte[] bytes() {
        return bytes;
    }

    @Override
    public String toString() {
        return name;
    }
}

package grid.gateway.app.rewrite;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * Random JSON texts, each built side by side with what the rewriters must make of it, so the expectation never comes
 * from the scanner under test: the text with its ids tagged ({@link Fixtures#TAG}), the stored ids a request finder
 * must report, and the text with those ids stripped ({@link Fixtures#STRIP}).
 */
final class RandomJson {
    /**
     * One generated text and its expectations.
     *
     * @param json the text
     * @param tagged the text after {@link ResponseIdTagger#tagJson}
     * @param rootIds the decoded values {@link RequestIdStripper#find} reports, in order
     * @param stripped the text after {@link RequestIdStripper#strip} with {@link Fixtures#STRIP}
     */
    record Sample(String json, String tagged, List<String> rootIds, String stripped) {
        @Override
        public String toString() {
            return json;
        }
    }

    /** A member name as written and the name it decodes to. */
    private record Name(String raw, String decoded) {}

    /** A string's content as written and decoded. */
    private record Str(String raw, String decoded) {}

    private static final List<Name> NAMES = List.of(
            new Name("id", "id"),
            new Name("previous_response_id", "previous_response_id"),
            new Name("conversation", "conversation"),
            new Name("\\u0069d", "id"),
            new Name("previous\\u005fresponse_id", "previous_response_id"),
            new Name("type", "type"),
            new Name("text", "text"),
            new Name("item_id", "item_id"),
            new Name("ID", "ID"),
            new Name("Previous_Response_Id", "Previous_Response_Id"),
            new Name("\\u0131d", "\u0131d"),
            new Name("conver\u017fation", "conver\u017fation"));

    private static final List<Str> STRINGS = List.of(
            new Str("resp_abc123", "resp_abc123"),
            new Str("conv_68ac2f", "conv_68ac2f"),
            new Str("resp_east.1ef772aa..abc", "resp_east.1ef772aa..abc"),
            new Str("conv_west.8bcc2dc9.315e3ad6b9906efa.x-Y_9", "conv_west.8bcc2dc9.315e3ad6b9906efa.x-Y_9"),
            new Str("resp_", "resp_"),
            new Str("resp\\u005fabc", "resp_abc"),
            new Str("\\u0063onv_x", "conv_x"),
            new Str("msg_9a8b", "msg_9a8b"),
            new Str("RESP_abc", "RESP_abc"),
            new Str("", ""),
            new Str("mentions resp_fake and \\\"id\\\": \\\"resp_x\\\"", "mentions resp_fake and \"id\": \"resp_x\""),
            new Str("h\u00e9llo \u4e16\u754c \ud83d\ude00 resp_", "h\u00e9llo \u4e16\u754c \ud83d\ude00 resp_"),
            new Str("line\\nbreak\\t\\\\ \\/", "line\nbreak\t\\ /"));

    private static final String[] SPACES = {"", "", "", " ", "\n", "\r\n\t "};

    private final SplittableRandom random;
    private final StringBuilder json = new StringBuilder();
    private final StringBuilder tagged = new StringBuilder();
    private final StringBuilder stripped = new StringBuilder();
    private final List<String> rootIds = new ArrayList<>();

    private RandomJson(SplittableRandom random) {
        this.random = random;
    }

    static Sample generate(SplittableRandom random) {
        RandomJson generator = new RandomJson(random);
        generator.space();
        if (random.nextInt(10) < 9) {
            generator.object(0, false);
        } else {
            generator.value(0, null, false);
        }
        generator.space();
        return new Sample(
                generator.json.toString(),
                generator.tagged.toString(),
                List.copyOf(generator.rootIds),
                generator.stripped.toString());
    }

    /** An object; {@code conversationObject} when it is the root's {@code conversation} member. */
    private void object(int depth, boolean conversationObject) {
        write("{");
        int members = random.nextInt(depth == 0 ? 7 : 4);
        for (int i = 0; i < members; i++) {
            if (i > 0) {
                write(",");
            }
            space();
            Name name = NAMES.get(random.nextInt(NAMES.size()));
            write("\"" + name.raw() + "\"");
            space();
            write(":");
            space();
            String decoded = name.decoded();
            boolean rootId = depth == 0 && (decoded.equals("previous_response_id") || decoded.equals("conversation"))
                    || conversationObject && decoded.equals("id");
            value(depth + 1, name, rootId);
            space();
        }
        write("}");
    }

    /** A value; {@code name} is the member's it is, {@code rootId} whether a finder must report it. */
    private void value(int depth, Name name, boolean rootId) {
        int kind = depth >= 5 ? 2 + random.nextInt(3) : random.nextInt(6);
        switch (kind) {
            case 0 -> object(depth, depth == 1 && name != null && name.decoded().equals("conversation"));
            case 1 -> array(depth);
            case 2, 3 -> string(name, rootId);
            default ->
                write(List.of("0", "-1.5e3", "true", "false", "null", "123456789012345678901234567890")
                        .get(random.nextInt(6)));
        }
    }

    private void array(int depth) {
        write("[");
        int elements = random.nextInt(4);
        for (int i = 0; i < elements; i++) {
            if (i > 0) {
                write(",");
            }
            space();
            value(depth + 1, null, false);
            space();
        }
        write("]");
    }

    private void string(Name name, boolean rootId) {
        Str s = STRINGS.get(random.nextInt(STRINGS.size()));
        json.append('"').append(s.raw()).append('"');
        // A client's parser may match a member's name in any letter case (Go, .NET): the answer's taggers do too.
        boolean idMember = name != null
                && Stream.of("id", "previous_response_id", "conversation").anyMatch(name.decoded()::equalsIgnoreCase);
        boolean prefixed = s.decoded().startsWith("resp_") || s.decoded().startsWith("conv_");
        tagged.append('"').append(idMember && prefixed ? tagged(s) : s.raw()).append('"');
        if (rootId) {
            // Every string in a root id field is an id, tagged or not; only a tag is rewritten.
            rootIds.add(s.decoded());
            String engineId = Fixtures.STRIP.apply(s.decoded());
            stripped.append('"')
                    .append(engineId.equals(s.decoded()) ? s.raw() : engineId)
                    .append('"');
        } else {
            stripped.append('"').append(s.raw()).append('"');
        }
    }

    /**
     * An id value as tagged: the tag's head, then the value as written after its prefix (which is five characters
     * written plainly or as six-byte escapes); as written when the tag function refuses it.
     */
    private static String tagged(Str s) {
        String tag = tag(s.decoded());
        if (tag.equals(s.decoded())) {
            return s.raw();
        }
        int prefixEnd = 0;
        for (int read = 0; read < 5; read++) {
            prefixEnd += s.raw().charAt(prefixEnd) == '\\' ? 6 : 1;
        }
        return tag.substring(0, tag.length() - (s.decoded().length() - 5))
                + s.raw().substring(prefixEnd);
    }

    private static String tag(String engineId) {
        try {
            return Fixtures.TAG.apply(engineId);
        } catch (IllegalArgumentException refused) {
            return engineId;
        }
    }

    private void space() {
        write(SPACES[random.nextInt(SPACES.length)]);
    }

    private void write(String text) {
        json.append(text);
        tagged.append(text);
        stripped.append(text);
    }
}

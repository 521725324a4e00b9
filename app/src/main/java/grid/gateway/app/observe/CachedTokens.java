package grid.gateway.app.observe;

import static java.util.Objects.requireNonNull;

import jakarta.json.Json;
import jakarta.json.stream.JsonParser;
import jakarta.json.stream.JsonParserFactory;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.StringReader;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Consumer;

/**
 * Finds the cached prompt tokens an engine reports in an answer's usage (docs/design.md §10, "what affinity actually saved").
 *
 * <pre>
 * usage.prompt_tokens_details.cached_tokens              Chat Completions, Completions (body, final stream chunk)
 * usage.input_tokens_details.cached_tokens               Responses (body)
 * response.usage.input_tokens_details.cached_tokens      Responses stream: the response.completed event
 * usage.cache_read_input_tokens                          Anthropic Messages (body, message_delta event)
 * message.usage.cache_read_input_tokens                  Anthropic Messages stream: the message_start event
 * </pre>
 *
 * <p>Each path starts at the document's top-level object; the same names anywhere else (inside {@code choices},
 * {@code output}, arrays) do not count. The value must be a non-negative integer that fits a {@code long}; a
 * {@code null}, a fraction or a string counts as not reported. In a stream the last event that reports a value
 * wins (vLLM's {@code continuous_usage_stats} repeats usage in every chunk; Anthropic reports it twice).
 *
 * <p>Cost: a document that contains neither {@code cached_tokens} nor {@code cache_read_input_tokens} as bytes is
 * rejected by one scan, without parsing, so a relay can call {@link #inJson} on every event of a token stream.
 * Other documents are read once by {@link UsageScan}: the project's JSON tokenizer, following member names by byte
 * offsets, with nothing decoded but the number found. Only a text the tokenizer refuses (not JSON, nested deeper
 * than its limit, malformed UTF-8) is read again by the jakarta.json streaming parser, skipping every subtree off
 * the paths above, so every text gets the answer that parser gives (it reads malformed UTF-8 as U+FFFD and nests
 * deeper). A key spelled with JSON escapes (<code>"cached&#92;u005ftokens"</code>) is found only when the bytes
 * also hold the plain name; no engine writes one.
 *
 * <p>Never throws on any input: text that is not JSON, not an object, truncated or nested too deep reports
 * nothing. Stateless and thread-safe.
 */
public final class CachedTokens {
    private static final List<List<String>> PATHS = List.of(
            List.of("usage", "prompt_tokens_details", "cached_tokens"),
            List.of("usage", "input_tokens_details", "cached_tokens"),
            List.of("response", "usage", "input_tokens_details", "cached_tokens"),
            List.of("usage", "cache_read_input_tokens"),
            List.of("message", "usage", "cache_read_input_tokens"));

    private static final byte[] CACHED_TOKENS = "cached_tokens".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CACHE_READ = "cache_read_input_tokens".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DATA = "data:".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] USAGE = "usage".getBytes(StandardCharsets.US_ASCII);
    private static final List<List<String>> USAGE_PATHS =
            List.of(List.of("usage"), List.of("response", "usage"), List.of("message", "usage"));

    /**
     * What an answer's usage said: whether it carried a usage object at all ({@code usage}, {@code response.usage},
     * {@code message.usage}), and the cached tokens it reported, if any. vLLM writes no count for 0 cached tokens
     * (with prompt-token details on: {@code null}, or nothing in a stream's usage chunk) and never one on
     * {@code /v1/messages}, so a usage without a count means 0 only from an engine known to report
     * ({@code CachedTokenReporters} in the routing core); an answer without any usage says nothing either way.
     *
     * @param usage whether the answer carried a usage object
     * @param cachedTokens the count reported; empty when none
     */
    public record UsageReading(boolean usage, OptionalLong cachedTokens) {
        /** No usage at all. */
        public static final UsageReading NONE = new UsageReading(false, OptionalLong.empty());
    }

    /** Documents up to this length are decoded at once rather than through a stream decoder's 8 KiB buffer. */
    private static final int DECODE_AT_ONCE = 8 * 1024;

    /** Stateless once built; parsson's factory is thread-safe. */
    private static final JsonParserFactory PARSERS = Json.createParserFactory(Map.of());

    private CachedTokens() {}

    /**
     * A parser over the bytes. A short document (the usual answer or event) is decoded to a String first: an
     * InputStreamReader's decoder allocates 8 KiB whatever the length. Malformed UTF-8 becomes U+FFFD either way.
     */
    private static JsonParser parser(byte[] bytes, int offset, int length) {
        if (length <= DECODE_AT_ONCE) {
            return PARSERS.createParser(new StringReader(new String(bytes, offset, length, StandardCharsets.UTF_8)));
        }
        return PARSERS.createParser(new ByteArrayInputStream(bytes, offset, length), StandardCharsets.UTF_8);
    }

    /** The cached tokens reported in a JSON answer body, or in the data of one server-sent event. */
    public static OptionalLong inJson(byte[] json) {
        requireNonNull(json, "json");
        return inJson(json, 0, json.length);
    }

    /** As {@link #inJson(byte[])}, for {@code length} bytes of {@code bytes} from {@code offset}. */
    public static OptionalLong inJson(byte[] bytes, int offset, int length) {
        requireNonNull(bytes, "bytes");
        if (offset < 0 || length < 0 || length > bytes.length - offset) {
            return OptionalLong.empty();
        }
        if (!namesCount(bytes, offset, length)) {
            return OptionalLong.empty();
        }
        return reading(bytes, offset, length).cachedTokens();
    }

    /** The usage of a JSON answer body, or of the data of one server-sent event ({@link UsageReading}). */
    public static UsageReading usageInJson(byte[] json) {
        requireNonNull(json, "json");
        if (indexOf(json, 0, json.length, USAGE) < 0) {
            return UsageReading.NONE;
        }
        UsageReading read = reading(json, 0, json.length);
        // The count exactly as inJson reads it: only where the bytes hold one of the names.
        return namesCount(json, 0, json.length) ? read : new UsageReading(read.usage(), OptionalLong.empty());
    }

    /**
     * The usage of a JSON object of which only {@code tail}, the last bytes of its text, was kept (a body longer than
     * the relay keeps): read as {@link #usageInJson} reads the object made of the top-level members the tail holds
     * whole ({@link JsonTail}). Engines write {@code usage} among an answer's last members (vLLM: before a few
     * {@code null}s), so a long generation's report is there; a member cut by the tail's start is not read, and a
     * usage cut so reports nothing.
     */
    public static UsageReading usageInJsonTail(byte[] tail) {
        requireNonNull(tail, "tail");
        int start = JsonTail.membersStart(tail);
        if (start < 0) {
            return UsageReading.NONE;
        }
        byte[] members = Arrays.copyOfRange(tail, start, tail.length);
        members[0] = '{';
        return usageInJson(members);
    }

    /**
     * The usage of a whole {@code text/event-stream} answer: whether any event carried one, and the last count any
     * event reported.
     */
    public static UsageReading usageInEventStream(byte[] stream) {
        requireNonNull(stream, "stream");
        UsageReading[] seen = {UsageReading.NONE};
        eventData(stream, data -> {
            UsageReading event = usageInJson(data);
            seen[0] = new UsageReading(
                    seen[0].usage() || event.usage(),
                    event.cachedTokens().isPresent() ? event.cachedTokens() : seen[0].cachedTokens());
        });
        return seen[0];
    }

    private static boolean namesCount(byte[] bytes, int offset, int length) {
        return indexOf(bytes, offset, offset + length, CACHED_TOKENS) >= 0
                || indexOf(bytes, offset, offset + length, CACHE_READ) >= 0;
    }

    private static UsageReading reading(byte[] bytes, int offset, int length) {
        UsageReading scanned = UsageScan.read(bytes, offset, offset + length);
        return scanned != null ? scanned : parsedReading(bytes, offset, length);
    }

    /** The answer of the jakarta.json streaming parser alone: for a text {@link UsageScan} refuses, and for tests. */
    static OptionalLong parsed(byte[] bytes, int offset, int length) {
        return parsedReading(bytes, offset, length).cachedTokens();
    }

    /** {@link #parsed}, with whether a usage object was seen. */
    static UsageReading parsedReading(byte[] bytes, int offset, int length) {
        try (JsonParser parser = parser(bytes, offset, length)) {
            return scan(parser);
        } catch (RuntimeException notJson) {
            return UsageReading.NONE;
        }
    }

    /**
     * The cached tokens reported in a whole {@code text/event-stream} answer: the last event whose data reports a
     * value. Lines end with LF, CRLF or CR; the data lines of one event are joined with LF, as the SSE standard
     * says; a final event without its blank line still counts.
     */
    public static OptionalLong inEventStream(byte[] stream) {
        requireNonNull(stream, "stream");
        OptionalLong[] last = {OptionalLong.empty()};
        eventData(stream, data -> {
            OptionalLong found = inJson(data);
            if (found.isPresent()) {
                last[0] = found;
            }
        });
        return last[0];
    }

    /** Hands the data of each event of {@code stream} to {@code sink}, in order. */
    private static void eventData(byte[] stream, Consumer<byte[]> sink) {
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        boolean hasData = false;
        int lineStart = 0;
        while (lineStart <= stream.length) {
            int lineEnd = lineStart;
            while (lineEnd < stream.length && stream[lineEnd] != '\n' && stream[lineEnd] != '\r') {
                lineEnd++;
            }
            if (lineEnd == lineStart) {
                if (hasData) {
                    sink.accept(data.toByteArray());
                    data.reset();
                    hasData = false;
                }
            } else if (startsWith(stream, lineStart, lineEnd, DATA)) {
                int from = lineStart + DATA.length;
                if (from < lineEnd && stream[from] == ' ') {
                    from++;
                }
                if (hasData) {
                    data.write('\n');
                }
                data.write(stream, from, lineEnd - from);
                hasData = true;
            }
            if (lineEnd >= stream.length) {
                break;
            }
            lineStart = stream[lineEnd] == '\r' && lineEnd + 1 < stream.length && stream[lineEnd + 1] == '\n'
                    ? lineEnd + 2
                    : lineEnd + 1;
        }
        if (hasData) {
            sink.accept(data.toByteArray());
        }
    }

    /**
     * Walks the top-level object, descending only into objects whose key path is a prefix of one of {@link #PATHS}
     * and skipping every other object and array whole.
     */
    private static UsageReading scan(JsonParser parser) {
        if (!parser.hasNext() || parser.next() != JsonParser.Event.START_OBJECT) {
            return UsageReading.NONE;
        }
        List<String> path = new ArrayList<>(4);
        String key = "";
        boolean usage = false;
        OptionalLong found = OptionalLong.empty();
        while (parser.hasNext()) {
            switch (parser.next()) {
                case KEY_NAME -> key = parser.getString();
                case START_OBJECT -> {
                    path.add(key);
                    usage |= USAGE_PATHS.contains(path);
                    if (!isPrefix(path)) {
                        path.removeLast();
                        skip(parser);
                    }
                }
                case START_ARRAY -> skip(parser);
                case END_OBJECT -> {
                    if (path.isEmpty()) {
                        // Anything after the top-level object makes the text invalid (hasNext throws on garbage).
                        return parser.hasNext() ? UsageReading.NONE : new UsageReading(usage, found);
                    }
                    path.removeLast();
                }
                case VALUE_NUMBER -> {
                    path.add(key);
                    if (PATHS.contains(path)) {
                        found = count(parser.getBigDecimal());
                    }
                    path.removeLast();
                }
                default -> {}
            }
        }
        // The top-level object never ended: truncated text.
        return UsageReading.NONE;
    }

    /**
     * Reads past the container just opened, event by event. Not Parsson's {@code skipArray}/{@code skipObject}: at
     * the end of a text truncated inside an array they loop forever (Parsson 1.1.9); {@code next} throws there.
     */
    private static void skip(JsonParser parser) {
        int depth = 1;
        while (depth > 0) {
            switch (parser.next()) {
                case START_OBJECT, START_ARRAY -> depth++;
                case END_OBJECT, END_ARRAY -> depth--;
                default -> {}
            }
        }
    }

    private static boolean isPrefix(List<String> path) {
        for (List<String> candidate : PATHS) {
            if (candidate.size() > path.size()
                    && candidate.subList(0, path.size()).equals(path)) {
                return true;
            }
        }
        return false;
    }

    /** A JSON number as a token count: a whole number from 0 to {@code Long.MAX_VALUE}, else empty. */
    static OptionalLong count(BigDecimal value) {
        if (value.signum() < 0) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(value.longValueExact());
        } catch (ArithmeticException notALong) {
            return OptionalLong.empty();
        }
    }

    private static boolean startsWith(byte[] bytes, int from, int to, byte[] prefix) {
        if (to - from < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (bytes[from + i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    private static int indexOf(byte[] bytes, int from, int to, byte[] needle) {
        byte first = needle[0];
        for (int i = from; i <= to - needle.length; i++) {
            if (bytes[i] == first && startsWith(bytes, i, to, needle)) {
                return i;
            }
        }
        return -1;
    }
}

package grid.gateway.enginesim;

import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Test fixture: what the gateway reads of one answer, as a list of facts that two answers share when they look the
 * same to the gateway, whatever the generated text, the token counts or the random ids:
 *
 * <pre>
 *   status, Content-Type, whether the answer closes the connection (and its Connection field, if any), Allow, Server, Date's form, Vary,
 *         Cache-Control, Content-Length or Transfer-Encoding
 *   JSON: the keys of every object in order (a top_logprobs map: how many entries); the shape of every id the tagger may rewrite (id, previous_response_id, item_id,
 *         conversation: hex runs become &lt;hexN&gt;); object, type, status, finish_reason, stop_reason; every usage
 *         object (its keys in order, each value's kind, cached_tokens as 0 or whole blocks); the error body (keys
 *         in order, type, param, numeric code, the message with hex runs as &lt;hexN&gt;; FastAPI's detail)
 *   SSE:  the framing (data-only, or event + data with the event's name as the JSON's type; [DONE] last), then the
 *         facts of each event, consecutive equal events counted once (a detokenizer merges tokens into fewer deltas)
 * </pre>
 */
final class GatewayView {
    private static final Set<String> ID_KEYS = Set.of("id", "previous_response_id", "item_id", "conversation");
    private static final Set<String> VALUE_KEYS = Set.of("object", "type", "status", "finish_reason", "stop_reason");
    private static final Pattern HEX = Pattern.compile("[0-9a-f]{8,}");
    /** RFC 9110's IMF-fixdate, the only form a server may send: two-digit day. */
    private static final Pattern IMF_FIXDATE =
            Pattern.compile("(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \\d{2} [A-Z][a-z]{2} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT");

    private final int blockSize;

    /** A view in which cached token counts must be whole blocks of {@code blockSize} tokens. */
    GatewayView(int blockSize) {
        this.blockSize = blockSize;
    }

    /** The facts of an answer with {@code status}, headers by lower-case name, and {@code body}. */
    List<String> of(int status, Function<String, Optional<String>> header, String body) {
        List<String> facts = new ArrayList<>();
        facts.add("status " + status);
        String type = header.apply("content-type")
                .map(t -> t.toLowerCase(Locale.ROOT).replace(" ", ""))
                .orElse("-");
        facts.add("content-type " + type);
        boolean closes = header.apply("connection")
                .map(c -> c.toLowerCase(Locale.ROOT).contains("close"))
                .orElse(false);
        facts.add(closes ? "connection closed after the answer" : "connection kept");
        // HTTP/1.1 keeps a connection by default: uvicorn says so with no Connection field at all.
        facts.add("connection field " + header.apply("connection").orElse("absent"));
        header.apply("allow").ifPresent(allow -> facts.add("allow " + allow));
        facts.add("server " + header.apply("server").orElse("absent"));
        facts.add("date "
                + header.apply("date")
                        .map(d -> IMF_FIXDATE.matcher(d).matches() ? "an IMF-fixdate" : d)
                        .orElse("absent"));
        facts.add("vary " + header.apply("vary").orElse("absent"));
        facts.add("cache-control " + header.apply("cache-control").orElse("absent"));
        facts.add(header.apply("transfer-encoding")
                .map(t -> "transfer-encoding " + t)
                .orElseGet(() -> header.apply("content-length")
                        .map(length -> "content-length")
                        .orElse("neither content-length nor transfer-encoding")));
        if (type.startsWith("text/event-stream")) {
            facts.addAll(stream(body));
        } else if (body.isEmpty()) {
            facts.add("no body");
        } else {
            facts.addAll(json(Recordings.parse(body)));
        }
        return facts;
    }

    private List<String> stream(String raw) {
        List<String> facts = new ArrayList<>();
        if (!raw.endsWith("\n\n")) {
            facts.add("sse: does not end with a blank line");
            return facts;
        }
        List<String> previous = List.of();
        String[] blocks = raw.substring(0, raw.length() - 2).split("\n\n", -1);
        for (int i = 0; i < blocks.length; i++) {
            List<String> event = event(blocks[i], i == blocks.length - 1);
            if (!event.equals(previous)) {
                facts.add("event: " + String.join("; ", event));
            }
            previous = event;
        }
        return facts;
    }

    private List<String> event(String block, boolean last) {
        Optional<String> name = Optional.empty();
        String data = null;
        List<String> facts = new ArrayList<>();
        for (String line : block.split("\n", -1)) {
            if (line.startsWith("event: ")) {
                name = Optional.of(line.substring("event: ".length()));
            } else if (line.startsWith("data: ")) {
                data = line.substring("data: ".length());
            } else {
                facts.add("unexpected line [" + line + "]");
            }
        }
        if (data == null) {
            facts.add("no data");
            return facts;
        }
        if (data.equals("[DONE]")) {
            facts.add(last ? "data: [DONE], last" : "data: [DONE], not last");
            return facts;
        }
        JsonValue json = Recordings.parse(data);
        if (name.isPresent()) {
            boolean typed = json instanceof JsonObject object && name.get().equals(object.getString("type", ""));
            facts.add("named " + name.get() + (typed ? " (its type)" : " (type differs)"));
        } else {
            facts.add("data-only");
        }
        facts.addAll(json(json));
        return facts;
    }

    private List<String> json(JsonValue value) {
        Set<String> facts = new LinkedHashSet<>();
        if (value instanceof JsonObject object) {
            facts.add("keys " + object.keySet());
        }
        walk("", value, facts);
        return List.copyOf(facts);
    }

    private void walk(String path, JsonValue value, Set<String> facts) {
        if (value instanceof JsonObject object) {
            if (!path.isEmpty()) {
                facts.add(path
                        + (path.endsWith(".top_logprobs[]")
                                ? " entries " + object.size()
                                : " keys " + object.keySet()));
            }
            if (path.endsWith(".top_logprobs[]")) {
                return; // a map from token text to its logprob: the text is the model's, the count is the request's
            }
            object.forEach((key, member) -> member(path.isEmpty() ? key : path + "." + key, key, member, facts));
        } else if (value.getValueType() == JsonValue.ValueType.ARRAY) {
            value.asJsonArray().forEach(item -> walk(path + "[]", item, facts));
        }
    }

    private void member(String path, String key, JsonValue member, Set<String> facts) {
        if (key.equals("usage")) {
            usage(path, member, facts);
        } else if (key.equals("error") && member instanceof JsonObject error) {
            facts.add(path + " keys " + error.keySet());
            facts.add(path + ".type = " + text(error.get("type")));
            facts.add(path + ".param = " + text(error.get("param")));
            facts.add(path + ".code = " + text(error.get("code")));
            facts.add(path + ".message = " + shape(error.get("message")));
        } else if (key.equals("detail")) {
            facts.add(path + " = " + text(member));
        } else if (ID_KEYS.contains(key) && !(member instanceof JsonObject)) {
            facts.add(path + " = " + shape(member));
        } else if (VALUE_KEYS.contains(key) && !(member instanceof JsonObject)) {
            facts.add(path + " = " + text(member));
        } else {
            walk(path, member, facts);
        }
    }

    private void usage(String path, JsonValue usage, Set<String> facts) {
        if (!(usage instanceof JsonObject object)) {
            facts.add(path + " = " + kind(usage));
            return;
        }
        facts.add(path + " keys " + object.keySet());
        object.forEach((key, value) -> {
            if (key.equals("cached_tokens") && value instanceof JsonNumber number) {
                int cached = number.intValue();
                facts.add(path + "." + key + " = "
                        + (cached == 0 ? "0" : cached % blockSize == 0 ? "whole blocks" : cached + " (not whole)"));
            } else if (value instanceof JsonObject inner) {
                usage(path + "." + key, inner, facts);
            } else {
                facts.add(path + "." + key + " is " + kind(value));
            }
        });
    }

    private static String shape(JsonValue value) {
        if (!(value instanceof JsonString string)) {
            return kind(value);
        }
        return HEX.matcher(string.getString())
                .replaceAll(m -> "<hex" + m.group().length() + ">");
    }

    private static String text(JsonValue value) {
        if (value == null) {
            return "absent";
        }
        return value instanceof JsonString string ? string.getString() : value.toString();
    }

    private static String kind(JsonValue value) {
        if (value == null) {
            return "absent";
        }
        return switch (value.getValueType()) {
            case STRING -> "a string";
            case NUMBER -> "a number";
            case NULL -> "null";
            case TRUE, FALSE -> "a boolean";
            case ARRAY -> value.asJsonArray().isEmpty() ? "[]" : "a list";
            case OBJECT -> "an object";
        };
    }
}

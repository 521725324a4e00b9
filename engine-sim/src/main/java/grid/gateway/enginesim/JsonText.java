package grid.gateway.enginesim;

import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonBuilderFactory;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * JSON in and out of the simulator (jakarta.json): strict parsing of request bodies into the 400 vLLM gives for a
 * malformed one, typed field reads that reject wrong types the same way, builders, and the text of a message's
 * content (a string, or the text of its parts).
 *
 * <p>Stateless and thread-safe; parsson's factories are.
 */
final class JsonText {
    private static final JsonProvider PROVIDER = JsonProvider.provider();
    private static final JsonBuilderFactory BUILDERS = PROVIDER.createBuilderFactory(Map.of());
    /** FastAPI's answer to a body it fails to parse other than by a JSON decode error. */
    static final String UNPARSABLE = "There was an error parsing the body";

    private JsonText() {}

    static JsonObjectBuilder object() {
        return BUILDERS.createObjectBuilder();
    }

    static JsonArrayBuilder array() {
        return BUILDERS.createArrayBuilder();
    }

    static JsonValue string(String value) {
        return PROVIDER.createValue(value);
    }

    static JsonValue number(double value) {
        return PROVIDER.createValue(value);
    }

    /** A copy of {@code object} with {@code key} set to {@code value}, in place when it was there. */
    static JsonObject with(JsonObject object, String key, String value) {
        return with(object, key, string(value));
    }

    /** A copy of {@code object} with {@code key} set to {@code value}, in place when it was there. */
    static JsonObject with(JsonObject object, String key, JsonValue value) {
        JsonObjectBuilder copy = object();
        object.forEach(copy::add);
        return copy.add(key, value).build();
    }

    static JsonArray arrayOf(List<? extends JsonValue> values) {
        JsonArrayBuilder array = array();
        values.forEach(array::add);
        return array.build();
    }

    /**
     * The body as one JSON object, read as vLLM reads it (Python's {@code json.loads} on the bytes: {@link
     * PythonText}, {@link PythonJson}), or a 400 as vLLM answers a body it cannot decode: FastAPI turns Python's
     * {@code JSONDecodeError} into a validation error at the decoder's position with its words, and any other failure
     * of its body parsing (bytes the detected encoding cannot decode, an integer past Python's digit limit, nesting
     * past its recursion limit) into {@value #UNPARSABLE}. An empty body is not parsed: the body is missing. Never a
     * 500: the gateway takes an engine's 5xx for the engine's failure.
     */
    static JsonObject parseObject(byte[] body) {
        if (body.length == 0) { // FastAPI parses no empty body: the request model's body is missing
            throw RequestRejected.validation("missing", "'body',", "Field required", "None", Optional.empty());
        }
        int[] text = PythonText.decode(body);
        if (text == null) {
            throw RequestRejected.badRequest(UNPARSABLE);
        }
        JsonValue value;
        try {
            value = PythonJson.loads(text);
        } catch (PythonJson.DecodeError e) {
            throw RequestRejected.validation(
                    "json_invalid", "'body', " + e.position(), "JSON decode error", "{}", Optional.of(e.words()));
        } catch (PythonJson.NotJson e) {
            throw RequestRejected.badRequest(UNPARSABLE);
        }
        if (value instanceof JsonObject object) {
            return object;
        }
        throw RequestRejected.validation(
                "model_attributes_type",
                "'body',",
                "Input should be a valid dictionary or object to extract fields from",
                PythonRepr.of(value),
                Optional.empty());
    }

    /** FastAPI's validation error for field {@code key} of the wrong type: pydantic's {@code type} and words. */
    private static RequestRejected wrongType(String key, String type, String kind, JsonValue value) {
        return refused(key, type, "Input should be a valid " + kind, value);
    }

    private static RequestRejected refused(String key, String type, String msg, JsonValue value) {
        return RequestRejected.validation(type, "'body', '" + key + "'", msg, PythonRepr.of(value), Optional.empty());
    }

    /** A string field; absent or null is empty, another type is a 400. */
    static Optional<String> string(JsonObject object, String key) {
        JsonValue value = object.get(key);
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return Optional.empty();
        }
        if (value instanceof JsonString string) {
            return Optional.of(string.getString());
        }
        throw wrongType(key, "string_type", "string", value);
    }

    /**
     * An integer field as pydantic reads a Python int or float into an {@code int} (lax mode): an int exactly, a
     * float only when whole; absent or null is empty. A NaN or infinite float is pydantic's {@code finite_number}, a
     * float with a fraction its {@code int_from_float}, another type its {@code int_type}, each a 400. A value past
     * the range of an int is held at {@link Integer#MAX_VALUE} or {@link Integer#MIN_VALUE}: every limit the
     * simulator checks is far inside it, so the verdict is vLLM's, though a message names the held value.
     */
    static OptionalInt integer(JsonObject object, String key) {
        JsonValue value = object.get(key);
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return OptionalInt.empty();
        }
        BigInteger exact;
        if (value instanceof PythonFloat number) {
            if (!number.isFinite()) {
                throw refused(key, "finite_number", "Input should be a finite number", value);
            }
            if (number.doubleValue() != Math.rint(number.doubleValue())) {
                throw refused(
                        key,
                        "int_from_float",
                        "Input should be a valid integer, got a number with a fractional part",
                        value);
            }
            exact = number.bigIntegerValue();
        } else if (value instanceof JsonNumber number && number.isIntegral()) {
            exact = number.bigIntegerValue();
        } else {
            throw wrongType(key, "int_type", "integer", value);
        }
        BigInteger held = exact.max(BigInteger.valueOf(Integer.MIN_VALUE)).min(BigInteger.valueOf(Integer.MAX_VALUE));
        return OptionalInt.of(held.intValueExact());
    }

    /** A boolean field; absent or null is {@code otherwise}, another type is a 400. */
    static boolean flag(JsonObject object, String key, boolean otherwise) {
        JsonValue value = object.get(key);
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return otherwise;
        }
        if (value == JsonValue.TRUE || value == JsonValue.FALSE) {
            return value == JsonValue.TRUE;
        }
        throw wrongType(key, "bool_type", "boolean", value);
    }

    /** An object field; absent or null is empty, another type is a 400. */
    static Optional<JsonObject> objectField(JsonObject object, String key) {
        return typed(object, key, JsonObject.class, "dictionary");
    }

    /** An array field; absent or null is empty, another type is a 400. */
    static Optional<JsonArray> arrayField(JsonObject object, String key) {
        return typed(object, key, JsonArray.class, "list");
    }

    private static <T extends JsonValue> Optional<T> typed(JsonObject object, String key, Class<T> type, String kind) {
        JsonValue value = object.get(key);
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return Optional.empty();
        }
        if (type.isInstance(value)) {
            return Optional.of(type.cast(value));
        }
        throw wrongType(key, kind.equals("list") ? "list_type" : "dict_type", kind, value);
    }

    /**
     * The text of a content value: a string as is; for an array, the text of each part ({@code text},
     * {@code input_text}, {@code output_text}, {@code refusal}, or a bare string) and the compact JSON of any
     * other part (media), concatenated; anything else as compact JSON; null as empty.
     */
    static String content(JsonValue value) {
        return switch (value.getValueType()) {
            case STRING -> ((JsonString) value).getString();
            case NULL -> "";
            case ARRAY -> {
                StringBuilder text = new StringBuilder();
                for (JsonValue part : value.asJsonArray()) {
                    text.append(part(part));
                }
                yield text.toString();
            }
            default -> value.toString();
        };
    }

    private static String part(JsonValue part) {
        if (part instanceof JsonString string) {
            return string.getString();
        }
        if (part instanceof JsonObject object) {
            for (String key : List.of("text", "refusal", "thinking")) {
                if (object.get(key) instanceof JsonString text) {
                    return text.getString();
                }
            }
            if (object.get("content") instanceof JsonValue inner) {
                return content(inner);
            }
        }
        return part.toString();
    }
}

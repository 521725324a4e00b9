package grid.gateway.enginesim;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonStructure;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Test fixture: the recordings of a real vLLM server in the repository's {@code testdata/vllm/}, found from the
 * module's directory upwards, and the recorded exchanges among its files.
 */
final class Recordings {
    private Recordings() {}

    /** One recorded request and its answer. */
    record Exchange(
            String name,
            String method,
            String path,
            Optional<String> body,
            int status,
            Map<String, String> headers,
            Optional<JsonValue> json,
            Optional<String> raw) {

        /** The recorded answer's header {@code name} (lower case), if it was there. */
        Optional<String> header(String name) {
            return Optional.ofNullable(headers.get(name));
        }
    }

    /** The directory of the recordings. */
    static Path dir() {
        for (Path at = Path.of("").toAbsolutePath(); at != null; at = at.getParent()) {
            Path candidate = at.resolve("testdata/vllm");
            if (Files.isDirectory(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException(
                "testdata/vllm not found above " + Path.of("").toAbsolutePath());
    }

    /** Every {@code *.json} file of the recordings, by name. */
    static List<Path> jsonFiles() {
        try (Stream<Path> files = Files.list(dir())) {
            return files.filter(p -> p.getFileName().toString().endsWith(".json"))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The text of recording {@code name}. */
    static String text(String name) {
        try {
            return Files.readString(dir().resolve(name), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static JsonStructure parse(String text) {
        try (JsonReader reader = Json.createReader(new StringReader(text))) {
            return reader.read();
        }
    }

    /**
     * Why {@code file} is not an exchange, or empty when it is one: an exchange is a JSON object with a
     * {@code request} (method and path) and a {@code response} (status).
     */
    static Optional<String> notAnExchange(Path file) {
        String name = file.getFileName().toString();
        JsonStructure json = parse(text(name));
        if (!(json instanceof JsonObject object)) {
            return Optional.of("a JSON array, not one exchange (" + name + ": decoded messages, not HTTP)");
        }
        if (object.get("request") instanceof JsonObject request
                && request.containsKey("method")
                && request.containsKey("path")
                && object.get("response") instanceof JsonObject response
                && response.containsKey("status")) {
            return Optional.empty();
        }
        return Optional.of("no request/response pair (" + name + ": keys " + object.keySet() + ")");
    }

    /** The exchange in {@code file}, which must be one. */
    static Exchange exchange(Path file) {
        String name = file.getFileName().toString();
        JsonObject object = parse(text(name)).asJsonObject();
        JsonObject request = object.getJsonObject("request");
        JsonObject response = object.getJsonObject("response");
        JsonValue body = request.getOrDefault("body", JsonValue.NULL);
        Map<String, String> headers = new java.util.TreeMap<>();
        response.getJsonObject("headers")
                .forEach((key, value) -> headers.put(
                        key.toLowerCase(java.util.Locale.ROOT), ((jakarta.json.JsonString) value).getString()));
        JsonValue answer = response.getOrDefault("body", JsonValue.NULL);
        return new Exchange(
                name.substring(0, name.length() - ".json".length()),
                request.getString("method"),
                request.getString("path"),
                body.getValueType() == JsonValue.ValueType.NULL ? Optional.empty() : Optional.of(body.toString()),
                response.getInt("status"),
                Map.copyOf(headers),
                answer.getValueType() == JsonValue.ValueType.NULL ? Optional.empty() : Optional.of(answer),
                Optional.ofNullable(response.getString("raw", null)));
    }
}

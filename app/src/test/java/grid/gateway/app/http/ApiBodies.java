package grid.gateway.app.http;

import grid.gateway.app.rewrite.Hostile;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Test fixture: random request bodies for the four APIs, valid ones with their exact expected forward (tagged ids
 * replaced by the engine's id, every other byte unchanged) and hostile byte-level mutations of them (no expectation
 * but "answered and never a 5xx").
 */
final class ApiBodies {
    /** One body: where it goes, its bytes, and what the engine must receive (null: no exact expectation). */
    record Sample(String path, byte[] body, byte[] expected) {
        @Override
        public String toString() {
            return path + " " + new String(body, StandardCharsets.UTF_8);
        }
    }

    private static final List<String> TEXTS = List.of(
            "hello",
            "h\\u00e9llo \\ud83d\\ude00",
            "line\\nbreak \\\"quoted\\\" \\/",
            "resp_fake in text",
            "",
            "\u4e16\u754c");
    private static final String[] SPACES = {"", " ", "\n", "\r\n\t "};

    private ApiBodies() {}

    static Sample sample(SplittableRandom random, String tag) {
        Sample valid = valid(random, tag);
        if (random.nextInt(3) > 0) {
            return valid;
        }
        return new Sample(valid.path(), mutate(valid.body(), random), null);
    }

    private static Sample valid(SplittableRandom random, String tag) {
        String sp = SPACES[random.nextInt(SPACES.length)];
        String text = TEXTS.get(random.nextInt(TEXTS.size()));
        String extra = random.nextBoolean() ? "," + sp + "\"temperature\":" + sp + random.nextInt(3) + ".5e-1" : "";
        String salt = random.nextBoolean() ? ",\"cache_salt\":\"s" + random.nextInt(5) + "\"" : "";
        return switch (random.nextInt(4)) {
            case 0 ->
                plain(
                        "/v1/chat/completions",
                        "{\"model\":\"demo-model\"" + salt + ",\"messages\":[{\"role\":\"system\",\"content\":\"" + text
                                + "\"}," + sp + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"" + text
                                + "\"}]}]" + extra + "}");
            case 1 ->
                plain(
                        "/v1/completions",
                        "{" + sp + "\"prompt\":\"" + text + "\"," + sp + "\"model\":\"demo-model\"" + extra + "}");
            case 2 ->
                plain(
                        "/v1/messages",
                        "{\"model\":\"demo-model\",\"max_tokens\":5,\"system\":\"" + text
                                + "\",\"messages\":[{\"role\":" + "\"user\",\"content\":[{\"type\":\"text\",\"text\":\""
                                + text + "\"}]}]" + extra + "}");
            default -> {
                boolean pinned = random.nextBoolean();
                String pin = pinned ? ",\"previous_response_id\":" + sp + "\"" + tag + "\"" : "";
                String body = "{\"model\":\"demo-model\",\"input\":\"" + text + "\"" + pin + extra + "}";
                String expected = pinned ? body.replace(tag, "resp_" + tag.substring(tag.lastIndexOf('.') + 1)) : body;
                yield new Sample("/v1/responses", utf8(body), utf8(expected));
            }
        };
    }

    private static Sample plain(String path, String body) {
        return new Sample(path, utf8(body), utf8(body));
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** One to four bytes overwritten, deleted or inserted, half of them from JSON's own punctuation. */
    private static byte[] mutate(byte[] original, SplittableRandom random) {
        return Hostile.mutate(original, random, utf8("{}[]\",:\\ \n0123456789-+.eEtfnu"));
    }
}

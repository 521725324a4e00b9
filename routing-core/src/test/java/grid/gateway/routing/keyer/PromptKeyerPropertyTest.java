package grid.gateway.routing.keyer;

import static grid.gateway.routing.keyer.JsonText.arr;
import static grid.gateway.routing.keyer.JsonText.obj;
import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.testing.SeededTrials;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Properties over generated bodies: spellings never change keys, content always does, nothing ever faults. */
class PromptKeyerPropertyTest {
    private static final long SEED = 20261130;
    private static final String TEXT_CHARS = "abc xyzé€😀\"\\\n\t/";
    private static final String[] ROLES = {"system", "user", "assistant", "tool", "developer"};
    private static final String[] PARAMETERS = {
        "temperature",
        "max_tokens",
        "max_completion_tokens",
        "stream",
        "top_p",
        "top_k",
        "stop",
        "n",
        "seed",
        "presence_penalty",
        "frequency_penalty",
        "logprobs",
        "user",
        "metadata",
        "response_format"
    };
    private static final byte[] JSON_BYTES = "{}[]\"\\,:u0-e n".getBytes(StandardCharsets.US_ASCII);

    private final PromptKeyer keyer = new PromptKeyer();

    /** A Chat Completions body of 1 to 12 messages, string or text-part content, with a tool list. */
    static Map<String, Object> chatBody(SplittableRandom random) {
        List<Object> messages = new ArrayList<>();
        int count = 1 + random.nextInt(12);
        for (int i = 0; i < count; i++) {
            Object content;
            if (random.nextBoolean()) {
                content = text(random);
            } else {
                List<Object> parts = new ArrayList<>();
                for (int p = 1 + random.nextInt(3); p > 0; p--) {
                    parts.add(obj("type", "text", "text", text(random)));
                }
                content = parts;
            }
            messages.add(obj("role", ROLES[random.nextInt(ROLES.length)], "content", content));
        }
        return obj(
                "model",
                "demo-model",
                "messages",
                messages,
                "temperature",
                0.5,
                "tools",
                arr(obj(
                        "type",
                        "function",
                        "function",
                        obj(
                                "name",
                                "f",
                                "parameters",
                                obj(
                                        "type",
                                        "object",
                                        "properties",
                                        obj("q", obj("type", "string"), "n", obj("type", "number")))))));
    }

    private static String text(SplittableRandom random) {
        StringBuilder text = new StringBuilder();
        for (int i = random.nextInt(600); i > 0; i--) {
            text.appendCodePoint(TEXT_CHARS.codePointAt(TEXT_CHARS.offsetByCodePoints(
                    0, random.nextInt(TEXT_CHARS.codePointCount(0, TEXT_CHARS.length())))));
        }
        return text.toString();
    }

    private static Object parameterValue(SplittableRandom random) {
        return switch (random.nextInt(4)) {
            case 0 -> random.nextInt();
            case 1 -> random.nextDouble(-10, 10);
            case 2 -> random.nextBoolean();
            default -> "v" + random.nextInt(1000);
        };
    }

    @Test
    void keys_ignoreMemberOrderWhiteSpaceAndEscapes() {
        SeededTrials.forAll(SEED, 300, PromptKeyerPropertyTest::chatBody, body -> {
            PromptKeys reference = keyer.key(ApiDialect.CHAT_COMPLETIONS, JsonText.bytes(body));
            String spelled = JsonText.spelled(body, body.hashCode(), true, true, true);
            assertThat(reference.isKeyed()).isTrue();
            assertThat(keyer.key(ApiDialect.CHAT_COMPLETIONS, spelled.getBytes(StandardCharsets.UTF_8))
                            .keys())
                    .isEqualTo(reference.keys());
        });
    }

    @Test
    void keys_ignoreGenerationParameters() {
        SeededTrials.forAll(
                SEED,
                300,
                random -> {
                    Map<String, Object> body = chatBody(random);
                    Map<String, Object> tuned = new java.util.LinkedHashMap<>(body);
                    for (int i = random.nextInt(7); i > 0; i--) {
                        tuned.put(PARAMETERS[random.nextInt(PARAMETERS.length)], parameterValue(random));
                    }
                    return List.of(body, tuned);
                },
                pair -> assertThat(keyer.key(ApiDialect.CHAT_COMPLETIONS, JsonText.bytes(pair.get(1)))
                                .keys())
                        .isEqualTo(keyer.key(ApiDialect.CHAT_COMPLETIONS, JsonText.bytes(pair.get(0)))
                                .keys()));
    }

    @Test
    void keys_changeWhenAMessageIsAdded() {
        SeededTrials.forAll(SEED, 300, PromptKeyerPropertyTest::chatBody, body -> {
            PromptKeys reference = keyer.key(ApiDialect.CHAT_COMPLETIONS, JsonText.bytes(body));
            @SuppressWarnings("unchecked") // chatBody() builds messages as a list
            List<Object> messages = (List<Object>) body.get("messages");
            messages.add(obj("role", "user", "content", "one more"));
            assertThat(keyer.key(ApiDialect.CHAT_COMPLETIONS, JsonText.bytes(body))
                            .keys())
                    .isNotEqualTo(reference.keys());
        });
    }

    @Test
    void key_anyBytes_neverFaults() {
        SeededTrials.forAll(
                SEED,
                2000,
                random -> {
                    byte[] body = new byte[random.nextInt(400)];
                    random.nextBytes(body);
                    return body;
                },
                this::assertNoFault);
    }

    @Test
    void key_mutatedValidBody_neverFaults() {
        SeededTrials.forAll(
                SEED,
                2000,
                random -> {
                    byte[] body = JsonText.bytes(chatBody(random));
                    for (int i = 1 + random.nextInt(4); i > 0; i--) {
                        int b = random.nextInt(JSON_BYTES.length + 2);
                        body[random.nextInt(body.length)] = b < JSON_BYTES.length ? JSON_BYTES[b] : (byte) (0x80 + b);
                    }
                    return body;
                },
                this::assertNoFault);
    }

    private void assertNoFault(byte[] body) {
        for (ApiDialect dialect : ApiDialect.values()) {
            assertThat(keyer.key(dialect, body).noKeysReason()).isNotEqualTo(Optional.of(NoKeysReason.KEYER_FAULT));
        }
    }
}

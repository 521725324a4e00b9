package grid.gateway.routing.keyer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A body whose keys could change no decision is validated and its model read, but its prompt is not keyed. */
class PromptKeyerOneCandidateTest {
    private static final String CHAT = "{\"model\":\"solo\",\"cache_salt\":\"tenant-7\","
            + "\"messages\":[{\"role\":\"user\",\"content\":\"hello there, a prompt long enough to key\"}]}";

    private final PromptKeyer keyer = new PromptKeyer();

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void key_keysDoNotMatterForTheModel_modelAndSaltReadNoKeys() {
        List<String> asked = new ArrayList<>();

        PromptKeys keys = keyer.key(ApiDialect.CHAT_COMPLETIONS, bytes(CHAT), model -> {
            asked.add(model);
            return false;
        });

        assertThat(asked).containsExactly("solo");
        assertThat(keys.model()).contains("solo");
        assertThat(keys.cacheSalt()).contains("tenant-7");
        assertThat(keys.isKeyed()).isFalse();
        assertThat(keys.noKeysReason()).contains(NoKeysReason.ONE_CANDIDATE);
        assertThat(NoKeysReason.ONE_CANDIDATE.counted()).isFalse();
    }

    @Test
    void key_keysMatter_theSameKeysAsWithoutAPredicate() {
        PromptKeys keys = keyer.key(ApiDialect.CHAT_COMPLETIONS, bytes(CHAT), model -> true);

        assertThat(keys.isKeyed()).isTrue();
        assertThat(keys.keys())
                .isEqualTo(keyer.key(ApiDialect.CHAT_COMPLETIONS, bytes(CHAT)).keys());
    }

    @Test
    void key_unreadableBody_itsOwnReasonBeforeAnyQuestion() {
        List<String> asked = new ArrayList<>();

        assertThat(keyer.key(ApiDialect.CHAT_COMPLETIONS, bytes("{\"model\":\"solo\",\"messages\":["), asked::add)
                        .noKeysReason())
                .contains(NoKeysReason.INVALID_JSON);
        assertThat(keyer.key(
                                ApiDialect.CHAT_COMPLETIONS,
                                bytes("{\"model\":\"solo\",\"model\":\"duo\",\"messages\":[]}"),
                                asked::add)
                        .noKeysReason())
                .contains(NoKeysReason.DUPLICATE_MEMBER);
        assertThat(keyer.key(ApiDialect.CHAT_COMPLETIONS, bytes("{\"messages\":[]}"), asked::add)
                        .noKeysReason())
                .contains(NoKeysReason.MISSING_MODEL);
        assertThat(asked).isEmpty();
    }

    @Test
    void key_promptTheWalkWouldRefuse_notWalkedWhenKeysDoNotMatter() {
        byte[] tokens = bytes("{\"model\":\"solo\",\"prompt\":[1,2,3]}");

        assertThat(keyer.key(ApiDialect.COMPLETIONS, tokens, model -> true).noKeysReason())
                .contains(NoKeysReason.TOKEN_PROMPT);
        assertThat(keyer.key(ApiDialect.COMPLETIONS, tokens, model -> false).noKeysReason())
                .contains(NoKeysReason.ONE_CANDIDATE);
    }
}

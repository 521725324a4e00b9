package grid.gateway.routing.keyer;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.text.NameRule;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A request's model is held bounded: a model longer than any valid name ({@link NameRule#MAX_CHARS}) is held cut,
 * followed by {@code …}, so that no cluster serves it and what carries it on is bounded; a valid name is held as sent.
 */
class PromptKeyerModelBoundTest {
    private final PromptKeyer keyer = new PromptKeyer();

    private static byte[] chat(String modelJson) {
        return ("{\"model\":" + modelJson + ",\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private PromptKeys key(String modelJson, List<String> asked) {
        return keyer.key(ApiDialect.CHAT_COMPLETIONS, chat(modelJson), model -> {
            asked.add(model);
            return false;
        });
    }

    @Test
    void aModelOfOneMebibyte_heldAsItsFirst253CharactersAndAnEllipsis_askedAboutAsSuch() {
        String huge = "m".repeat(1 << 20);
        List<String> asked = new ArrayList<>();

        PromptKeys keys = key("\"" + huge + "\"", asked);

        String bounded = "m".repeat(NameRule.MAX_CHARS) + "…";
        assertThat(keys.model()).contains(bounded);
        assertThat(asked).containsExactly(bounded);
        assertThat(keys.noKeysReason()).contains(NoKeysReason.ONE_CANDIDATE);
    }

    @Test
    void aModelOfExactlyTheLimit_heldAsSent_oneMore_heldLongerThanAnyValidName() {
        String atLimit = "a".repeat(NameRule.MAX_CHARS);
        List<String> asked = new ArrayList<>();

        assertThat(key("\"" + atLimit + "\"", asked).model()).contains(atLimit);
        PromptKeys over = key("\"" + atLimit + "b\"", asked);

        assertThat(over.model()).contains(atLimit + "…");
        assertThat(over.model().get()).hasSizeGreaterThan(NameRule.MAX_CHARS);
        assertThat(NameRule.valid(over.model().get())).isFalse();
    }

    @Test
    void aCutThatWouldSplitASurrogatePair_keepsThePairWhole() {
        // 252 letters, then U+1F600 (two chars) crossing the limit, then more.
        String model = "a".repeat(NameRule.MAX_CHARS - 1) + "\uD83D\uDE00" + "tail";

        PromptKeys keys = key("\"" + model + "\"", new ArrayList<>());

        assertThat(keys.model()).contains("a".repeat(NameRule.MAX_CHARS - 1) + "\uD83D\uDE00…");
        String escaped = "a".repeat(NameRule.MAX_CHARS - 1) + "\\ud83d\\ude00tail";
        assertThat(key("\"" + escaped + "\"", new ArrayList<>()).model()).isEqualTo(keys.model());
    }
}

package grid.gateway.routing.keyer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Member names looked up by their spelling in a body: plain and escaped, each name and nothing else. */
class FieldNameTest {
    @Test
    void indexOf_everyNameAsSpelled_isItsIndex() {
        for (FieldName name : FieldName.ALL) {
            assertThat(indexOf("\"" + name + "\"")).as(name.toString()).isEqualTo(name.index());
        }
    }

    @Test
    void indexOf_everyNameFullyEscaped_isItsIndex() {
        for (FieldName name : FieldName.ALL) {
            StringBuilder escaped = new StringBuilder("\"");
            name.toString().chars().forEach(c -> escaped.append("\\u%04x".formatted(c)));
            assertThat(indexOf(escaped.append('"').toString()))
                    .as(name.toString())
                    .isEqualTo(name.index());
        }
    }

    @Test
    void indexOf_oneCharEscaped_isItsIndex() {
        assertThat(indexOf("\"mess\\u0061ges\"")).isEqualTo(FieldName.MESSAGES.index());
        assertThat(indexOf("\"\\u0074ools\"")).isEqualTo(FieldName.TOOLS.index());
    }

    @Test
    void indexOf_otherNames_isMinusOne() {
        for (String other : new String[] {
            "\"\"",
            "\"Model\"",
            "\"model \"",
            "\"mode\"",
            "\"models\"",
            "\"prompt_embedz\"",
            "\"prompt_embeds_\"",
            "\"a_name_longer_than_any\"",
            "\"mod\\u0065ls\"",
            "\"\\n\""
        }) {
            assertThat(indexOf(other)).as(other).isEqualTo(-1);
        }
    }

    private static int indexOf(String quoted) {
        byte[] text = ("{" + quoted + ":1}").getBytes(StandardCharsets.UTF_8);
        return FieldName.indexOf(text, 1, 1 + quoted.length());
    }
}

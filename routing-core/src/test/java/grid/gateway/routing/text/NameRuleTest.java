package grid.gateway.routing.text;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NameRuleTest {
    @Test
    void valid_boundedVisibleWellFormedNamesOnly() {
        assertThat(NameRule.valid("meta-llama/Llama-3.1-8B-Instruct")).isTrue();
        assertThat(NameRule.valid("a".repeat(NameRule.MAX_CHARS))).isTrue();
        assertThat(NameRule.valid("a".repeat(NameRule.MAX_CHARS + 1))).isFalse();
        assertThat(NameRule.valid(" ")).isFalse();
        assertThat(NameRule.valid("demo\u200Bmodel")).isFalse();
        assertThat(NameRule.valid("demo\nmodel")).isFalse();
        assertThat(NameRule.valid("demo\uD800")).isFalse();
        assertThat(NameRule.valid("d\u00e9mo-\uD83D\uDE00")).isTrue();
    }

    @Test
    void bounded_aValidLengthAsItIs_longerAlwaysOverTheLimit() {
        String atLimit = "a".repeat(NameRule.MAX_CHARS);
        assertThat(NameRule.bounded(atLimit)).isSameAs(atLimit);
        assertThat(NameRule.bounded(atLimit + "x")).isEqualTo(atLimit + "…");
        // A pair across the limit is kept whole, so the cut is never shorter than the limit plus its ellipsis.
        String pair = "a".repeat(NameRule.MAX_CHARS - 1) + "\uD83D\uDE00";
        assertThat(NameRule.bounded(pair)).isEqualTo(pair + "…");
        assertThat(NameRule.bounded(pair + "z")).isEqualTo(pair + "…");
    }
}

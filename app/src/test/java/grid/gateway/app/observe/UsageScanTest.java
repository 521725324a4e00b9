package grid.gateway.app.observe;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The tokenizer scan answers exactly what the streaming parser answered, on valid and broken texts alike. */
class UsageScanTest {
    private static final List<String> CORPUS = List.of(
            "{\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"Hi\"}}],"
                    + "\"usage\":{\"prompt_tokens\":2100,\"prompt_tokens_details\":{\"cached_tokens\":2048}}}",
            "{\"usage\":{\"input_tokens\":1500,\"input_tokens_details\":{\"cached_tokens\":1024},\"output_tokens\":5}}",
            "{\"type\":\"response.completed\",\"response\":{\"id\":\"resp_1\",\"output\":[],"
                    + "\"usage\":{\"input_tokens_details\":{\"cached_tokens\":1280}}}}",
            "{\"usage\":{\"input_tokens\":12,\"cache_read_input_tokens\":4096,\"output_tokens\":6}}",
            "{\"type\":\"message_start\",\"message\":{\"usage\":{\"cache_read_input_tokens\":3072}}}",
            "{\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":5,\"cached_tokens\":7}}}",
            "{\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":5,\"cached_tokens\":-1}}}",
            "{\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":5,\"cached_tokens\":\"x\"}}}",
            "{\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":64.0}}}",
            "{\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":-0}}}",
            "{\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":1e3}}}",
            "{\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":1e99999999999}}}",
            "{\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":9223372036854775807}}}",
            "{\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":9223372036854775808}}}",
            "{\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":{\"a\":1}}}}",
            "{\"usage\":{\"prompt_tokens_details\":5,\"cache_read_input_tokens\":[1]}}",
            "{\"usage\":{\"cached_tokens\":5},\"cached_tokens\":6,\"message\":{\"cache_read_input_tokens\":7}}",
            "{\"usage\":{\"prompt_tokens_details\":{\"cached\\u005ftokens\":33,\"x\":\"cached_tokens\"}}}",
            "{\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":1}},\"usage\":{\"cache_read_input_tokens\":2}}",
            "[{\"usage\":{\"cache_read_input_tokens\":1}}]",
            "{\"choices\":[{\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":5}}}]}");

    @Test
    void inJson_corpusAndEveryTruncationAndByteFlip_sameAnswerAsTheStreamingParser() {
        SplittableRandom random = new SplittableRandom(14);
        List<byte[]> texts = new ArrayList<>();
        for (String doc : CORPUS) {
            byte[] bytes = doc.getBytes(StandardCharsets.UTF_8);
            texts.add(bytes);
            for (int cut = 0; cut < bytes.length; cut++) {
                texts.add(Arrays.copyOf(bytes, cut));
            }
            for (int flip = 0; flip < 200; flip++) {
                byte[] mutated = bytes.clone();
                mutated[random.nextInt(mutated.length)] =
                        (byte) "{}[]\":,-0123456789 e.\\x\u00ff".charAt(random.nextInt(24));
                texts.add(mutated);
            }
        }
        for (byte[] text : texts) {
            assertThat(CachedTokens.inJson(text))
                    .as(new String(text, StandardCharsets.UTF_8))
                    .isEqualTo(before(text));
        }
    }

    /** What inJson answered before the scan: the name check, then the streaming parser. */
    private static OptionalLong before(byte[] text) {
        String latin = new String(text, StandardCharsets.ISO_8859_1);
        return latin.contains("cached_tokens") || latin.contains("cache_read_input_tokens")
                ? CachedTokens.parsed(text, 0, text.length)
                : OptionalLong.empty();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void inJson_textCutInsideAnArrayAfterItsUsage_emptyAndReturns() {
        // Parsson's skipArray never returned here (the text ends inside the array): the relay's thread spun forever.
        byte[] cut = "{\"usage\":{\"cache_read_input_tokens\":5},\"choices\":[{\"index\":0}"
                .getBytes(StandardCharsets.UTF_8);

        assertThat(CachedTokens.inJson(cut)).isEmpty();
        assertThat(CachedTokens.parsed(cut, 0, cut.length)).isEmpty();
    }

    @Test
    void read_validText_answersWithoutTheParser() {
        byte[] text = CORPUS.getFirst().getBytes(StandardCharsets.UTF_8);

        assertThat(UsageScan.read(text, 0, text.length))
                .isEqualTo(new CachedTokens.UsageReading(true, OptionalLong.of(2048)));
    }

    @Test
    void read_escapedNameOnThePath_foundAsTheParserFindsIt() {
        byte[] text = CORPUS.get(17).getBytes(StandardCharsets.UTF_8);

        assertThat(UsageScan.read(text, 0, text.length))
                .isEqualTo(new CachedTokens.UsageReading(true, OptionalLong.of(33)));
        assertThat(CachedTokens.parsed(text, 0, text.length)).hasValue(33);
    }

    @Test
    void read_textTheTokenizerRefuses_leftToTheParser() {
        byte[] deep = ("{\"a\":" + "[".repeat(500) + "]".repeat(500) + ",\"usage\":{\"cache_read_input_tokens\":9}}")
                .getBytes(StandardCharsets.UTF_8);
        byte[] badUtf8 = {
            '{',
            '"',
            'u',
            's',
            'a',
            'g',
            'e',
            '"',
            ':',
            '{',
            '"',
            'c',
            'a',
            'c',
            'h',
            'e',
            '_',
            'r',
            'e',
            'a',
            'd',
            '_',
            'i',
            'n',
            'p',
            'u',
            't',
            '_',
            't',
            'o',
            'k',
            'e',
            'n',
            's',
            '"',
            ':',
            '3',
            ',',
            '"',
            'x',
            '"',
            ':',
            '"',
            (byte) 0xC3,
            (byte) 0x28,
            '"',
            '}',
            '}'
        };

        assertThat(UsageScan.read(deep, 0, deep.length)).isNull();
        assertThat(CachedTokens.inJson(deep)).hasValue(9);
        assertThat(UsageScan.read(badUtf8, 0, badUtf8.length)).isNull();
        assertThat(CachedTokens.inJson(badUtf8)).isEqualTo(CachedTokens.parsed(badUtf8, 0, badUtf8.length));
    }
}

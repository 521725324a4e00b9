package grid.gateway.app.rewrite;

import static grid.gateway.app.rewrite.Fixtures.json;
import static grid.gateway.app.rewrite.Fixtures.text;
import static grid.gateway.app.rewrite.Fixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import grid.gateway.routing.testing.SeededTrials;
import grid.gateway.routing.text.JsonTokenizer;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Finding and stripping the tagged ids a Responses request body names (docs/design.md §5). */
class RequestIdStripperTest {
    private static final String PREV = "resp_east.1ef772aa..0a1b2c3d";
    private static final String CONV = "conv_east.1ef772aa..68ac2f";

    private final RequestIdStripper stripper = new RequestIdStripper();

    private List<String> values(String body) {
        return stripper.find(utf8(json(body))).values();
    }

    @Test
    void find_createRequest_previousResponseIdWithItsRange() {
        String body = json("{'model':'Qwen/Qwen3-8B','input':[{'role':'user','content':'Hi'}],"
                + "'previous_response_id':'" + PREV + "','stream':true}");

        StoredIds ids = stripper.find(utf8(body));

        assertThat(ids.ids()).singleElement().satisfies(id -> {
            assertThat(id.field()).isEqualTo(StoredIdField.PREVIOUS_RESPONSE_ID);
            assertThat(id.value()).isEqualTo(PREV);
            assertThat(body.substring(id.start() - 1, id.end() + 1)).isEqualTo('"' + PREV + '"');
        });
    }

    static Stream<Arguments> bodies() {
        return Stream.of(
                Arguments.of("{'conversation':'" + CONV + "','input':'Hi'}", List.of(CONV)),
                Arguments.of("{'conversation':{'id':'" + CONV + "'},'input':'Hi'}", List.of(CONV)),
                Arguments.of(
                        "{'conversation':{'x':{'id':'conv_a'},'id':'" + CONV + "','previous_response_id':'resp_b'}}",
                        List.of(CONV)),
                Arguments.of(
                        "{'previous_response_id':'" + PREV + "','conversation':{'id':'" + CONV + "'}}",
                        List.of(PREV, CONV)),
                Arguments.of("{'previous_response_id':'resp_abc'}", List.of("resp_abc")),
                Arguments.of("{'previous_response_id':'conv_abc'}", List.of("conv_abc")),
                // Any string in those fields names a stored object (the router answers 404).
                Arguments.of(
                        "{'previous_response_id':'msg_abc','conversation':'abc','id':'resp_a'}",
                        List.of("msg_abc", "abc")),
                Arguments.of("{'previous_response_id':null,'conversation':{'id':5}}", List.of()),
                Arguments.of("{'previous_response_id':['resp_a'],'conversation':[{'id':'conv_a'}]}", List.of()),
                Arguments.of(
                        "{'input':[{'previous_response_id':'resp_a','conversation':'conv_b'}],'metadata':"
                                + "{'conversation':{'id':'conv_c'}}}",
                        List.of()),
                Arguments.of("{'conversation':{'meta':{'id':'conv_a'}}}", List.of()),
                Arguments.of("{'text':'\\'previous_response_id\\':\\'resp_a\\''}", List.of()),
                Arguments.of("{'previous_response_id':'resp\\u005fabc'}", List.of("resp_abc")),
                Arguments.of("{'previous_response_id':'\\u0072esp_abc'}", List.of("resp_abc")),
                Arguments.of("{'previous\\u005fresponse_id':'resp_abc'}", List.of("resp_abc")),
                Arguments.of("{'conversation':{'\\u0069d':'conv_x'}}", List.of("conv_x")),
                Arguments.of("{'Previous_Response_Id':'resp_a','CONVERSATION':'conv_b'}", List.of()),
                Arguments.of("[{'previous_response_id':'resp_a'}]", List.of()),
                Arguments.of("'resp_a'", List.of()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("bodies")
    void find_body_reportsRootStoredIdsOnly(String body, List<String> expected) {
        assertThat(values(body)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(
            strings = {
                "",
                "previous_response_id=resp_a",
                "{\"previous_response_id\":\"resp_a\"",
                "{\"previous_response_id\":\"resp_a\"}}",
                "{\"previous_response_id\":\"resp_a\",}",
                "{\"previous_response_id\":\"resp_a\",\"n\":Infinity}",
                "\ufeff\ufeff{\"previous_response_id\":\"resp_a\"}",
                " \ufeff{\"previous_response_id\":\"resp_a\"}",
            })
    void find_notOneJsonText_noIds(String body) {
        assertThat(stripper.find(utf8(body)).isEmpty()).isTrue();
    }

    @Test
    void find_afterAUtf8ByteOrderMark_idsAsPythonReadsThem_stripKeepsTheMark() {
        byte[] body = utf8("\ufeff{\"previous_response_id\":\"resp_a\",\"conversation\":{\"id\":\"conv_b\"}}");

        StoredIds ids = stripper.find(body);

        assertThat(ids.values()).containsExactly("resp_a", "conv_b");
        assertThat(new String(
                        stripper.strip(body, ids, id -> id.toUpperCase(java.util.Locale.ROOT)),
                        java.nio.charset.StandardCharsets.UTF_8))
                .isEqualTo("\ufeff{\"previous_response_id\":\"RESP_A\",\"conversation\":{\"id\":\"CONV_B\"}}");
    }

    @Test
    void find_duplicatedMembers_everyCopyInBodyOrder() {
        String body = "{'previous_response_id':'resp_one','input':'Hi','previous_response_id':'resp_two',"
                + "'conversation':'conv_three','conversation':{'id':'conv_four','id':'conv_five'},"
                + "'previous_response_id':'resp_six'}";

        StoredIds ids = stripper.find(utf8(json(body)));

        assertThat(ids.values())
                .containsExactly("resp_one", "resp_two", "conv_three", "conv_four", "conv_five", "resp_six");
        assertThat(ids.ids().stream().map(StoredId::field))
                .containsExactly(
                        StoredIdField.PREVIOUS_RESPONSE_ID,
                        StoredIdField.PREVIOUS_RESPONSE_ID,
                        StoredIdField.CONVERSATION,
                        StoredIdField.CONVERSATION_ID,
                        StoredIdField.CONVERSATION_ID,
                        StoredIdField.PREVIOUS_RESPONSE_ID);
    }

    @Test
    void find_afterOneMebibyteOfInput_found() {
        String filler = "lorem ipsum resp_fake \\\"previous_response_id\\\" ".repeat(1 << 15);
        String body = json("{'model':'m','input':[{'role':'user','content':'")
                + filler
                + json("'}],")
                + json("'previous_response_id':'" + PREV + "'}");
        assertThat(body.length()).isGreaterThan(1 << 20);

        assertThat(stripper.find(utf8(body)).values()).containsExactly(PREV);
    }

    @Test
    void strip_taggedIds_replacesThemAndLeavesEveryOtherByteIdentical() {
        byte[] body = utf8(json("{ 'model' : 'm',\n 'previous_response_id':'" + PREV + "', 'input':'h\u00e9 resp_x',"
                + " 'conversation' : { 'id' : '" + CONV + "' } }\r\n"));
        StoredIds ids = stripper.find(body);

        byte[] out = stripper.strip(body, ids, Fixtures.STRIP);

        assertThat(text(out))
                .isEqualTo(json("{ 'model' : 'm',\n 'previous_response_id':'resp_0a1b2c3d', 'input':'h\u00e9 resp_x',"
                        + " 'conversation' : { 'id' : 'conv_68ac2f' } }\r\n"));
        // Byte for byte: the text between, before and after the ids is the same array region.
        int shift = 0;
        int from = 0;
        for (StoredId id : ids.ids()) {
            assertThat(Arrays.copyOfRange(out, from + shift, id.start() + shift))
                    .isEqualTo(Arrays.copyOfRange(body, from, id.start()));
            shift += Fixtures.STRIP.apply(id.value()).length() - (id.end() - id.start());
            from = id.end();
        }
        assertThat(Arrays.copyOfRange(out, from + shift, out.length))
                .isEqualTo(Arrays.copyOfRange(body, from, body.length));
    }

    @Test
    void strip_escapedId_writesThePlainEngineId() {
        byte[] body = utf8(json("{'previous_response_id':'resp\\u005feast.1ef772aa..abc'}"));
        assertThat(text(stripper.strip(body, stripper.find(body), Fixtures.STRIP)))
                .isEqualTo(json("{'previous_response_id':'resp_abc'}"));
    }

    @Test
    void strip_replacementNeedingEscapes_writtenAsJsonString() {
        byte[] body = utf8(json("{'conversation':'conv_a'}"));
        assertThat(text(stripper.strip(body, stripper.find(body), id -> "a\"b\\c\n\u00e9")))
                .isEqualTo("{\"conversation\":\"a\\\"b\\\\c\\u000a\u00e9\"}");
    }

    @Test
    void strip_noIds_returnsTheSameArray() {
        byte[] body = utf8(json("{'input':'Hi'}"));
        assertThat(stripper.strip(body, stripper.find(body), Fixtures.STRIP)).isSameAs(body);
    }

    @Test
    void strip_idsOfALongerBody_refused() {
        byte[] longer = utf8(json("{'input':'xxxxxxxxxxxxxxxxxxxxx','previous_response_id':'resp_a'}"));
        StoredIds ids = stripper.find(longer);
        assertThatThrownBy(() -> stripper.strip(utf8("{}"), ids, Fixtures.STRIP))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void findAndStrip_randomJson_matchIndependentExpectation() {
        int[] withIds = {0};
        SeededTrials.forAll(0xF1D0L, 5_000, RandomJson::generate, sample -> {
            byte[] body = utf8(sample.json());
            StoredIds ids = stripper.find(body);
            assertThat(ids.values()).isEqualTo(sample.rootIds());
            assertThat(text(stripper.strip(body, ids, Fixtures.STRIP))).isEqualTo(sample.stripped());
            withIds[0] += ids.isEmpty() ? 0 : 1;
        });
        // The generator must exercise finding, not only bodies that name no id.
        assertThat(withIds[0]).isGreaterThan(500);
    }

    @Test
    void findAndStrip_tenThousandRandomBodies_neverThrow() {
        SeededTrials.forAll(0xDEADL, 10_000, Hostile::randomBytes, body -> {
            StoredIds ids = stripper.find(body);
            assertThat(stripper.strip(body, ids, Fixtures.STRIP)).isNotNull();
        });
        byte[] request = utf8(json("{'previous_response_id':'" + PREV + "','conversation':{'id':'" + CONV + "'}}"));
        SeededTrials.forAll(0xBEEFL, 10_000, random -> Hostile.mutate(request, random), body -> {
            StoredIds ids = stripper.find(body);
            assertThat(stripper.strip(body, ids, Fixtures.STRIP)).isNotNull();
        });
    }

    /**
     * A deliberate choice: the rewrite shares the keyer's tokenizer and so its depth limit; a body nested
     * deeper than 256 containers is unreadable (the gateway answers 400 {@code invalid_json}), as it gets no keys.
     */
    @Test
    void read_nestedBeyondTheDepthLimit_unreadable() {
        String atLimit =
                "{\"previous_response_id\":\"" + PREV + "\",\"input\":" + nested(JsonTokenizer.MAX_DEPTH - 1) + "}";
        assertThat(stripper.read(utf8(atLimit)))
                .hasValueSatisfying(ids -> assertThat(ids.values()).containsExactly(PREV));
        String beyond = "{\"previous_response_id\":\"" + PREV + "\",\"input\":" + nested(JsonTokenizer.MAX_DEPTH) + "}";
        assertThat(stripper.read(utf8(beyond))).isEmpty();
    }

    private static String nested(int arrays) {
        return "[".repeat(arrays) + "]".repeat(arrays);
    }
}

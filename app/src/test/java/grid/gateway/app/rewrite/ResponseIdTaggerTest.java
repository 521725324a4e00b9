package grid.gateway.app.rewrite;

import static grid.gateway.app.rewrite.Fixtures.json;
import static grid.gateway.app.rewrite.Fixtures.tagged;
import static grid.gateway.app.rewrite.Fixtures.text;
import static grid.gateway.app.rewrite.Fixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.testing.SeededTrials;
import grid.gateway.routing.text.JsonTokenizer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Tagging the stored ids of JSON answers (docs/design.md §5). */
class ResponseIdTaggerTest {
    private final ResponseIdTagger tagger = new ResponseIdTagger(Fixtures.TAG);

    @Test
    void tagJson_vllmResponse_tagsResponseAndConversationIdsOnly() {
        String expected = Fixtures.RESPONSE
                .replace(Fixtures.RESP_ID, tagged(Fixtures.RESP_ID))
                .replace(Fixtures.PREV_ID, tagged(Fixtures.PREV_ID))
                .replace(Fixtures.CONV_ID, tagged(Fixtures.CONV_ID));

        String out = text(tagger.tagJson(utf8(Fixtures.RESPONSE)));

        assertThat(out).isEqualTo(expected);
        // Item ids and model text that mentions ids are not stored-id members' values.
        assertThat(out)
                .contains(
                        "\"id\":\"rs_4b2a8c1e9f0d4e7a\"",
                        "\"id\":\"msg_9a8b7c6d5e4f4a3b\"",
                        "\"id\":\"fc_0f1e2d3c4b5a\"")
                .contains("resp_fake", "\\\"resp_quoted\\\"", "\\\"resp_in_args\\\"")
                .contains("\"conversation\":{\"id\":\"conv_east.1ef772aa..68ac2f0d1e2b\"}");
    }

    static Stream<Arguments> answers() {
        return Stream.of(
                Arguments.of(
                        "{'id':'resp_a','object':'response','deleted':true}",
                        "{'id':'resp_east.1ef772aa..a','object':'response','deleted':true}"),
                Arguments.of(
                        "{'id':'conv_a','object':'conversation','created_at':1,'metadata':{}}",
                        "{'id':'conv_east.1ef772aa..a','object':'conversation','created_at':1,'metadata':{}}"),
                Arguments.of(
                        "{'id':'conv_a','object':'conversation.deleted','deleted':true}",
                        "{'id':'conv_east.1ef772aa..a','object':'conversation.deleted','deleted':true}"),
                Arguments.of(
                        "{'id':'resp_a','object':'response.compaction','output':[{'type':'compaction','id':'cmp_1'}]}",
                        "{'id':'resp_east.1ef772aa..a','object':'response.compaction','output':[{'type':'compaction','id':'cmp_1'}]}"),
                Arguments.of(
                        "{'object':'list','data':[{'id':'msg_1','type':'message'}],'first_id':'msg_1','has_more':false}",
                        "{'object':'list','data':[{'id':'msg_1','type':'message'}],'first_id':'msg_1','has_more':false}"),
                Arguments.of("{'conversation':'conv_a'}", "{'conversation':'conv_east.1ef772aa..a'}"),
                Arguments.of(
                        "{'a':[{'b':{'id':'resp_a'}}],'c':{'previous_response_id':'resp_b'}}",
                        "{'a':[{'b':{'id':'resp_east.1ef772aa..a'}}],'c':{'previous_response_id':'resp_east.1ef772aa..b'}}"),
                Arguments.of(
                        " {\n  'id' :\t'resp_a' ,\r\n 'x' : [ ] }\n",
                        " {\n  'id' :\t'resp_east.1ef772aa..a' ,\r\n 'x' : [ ] }\n"),
                Arguments.of("{'\\u0069d':'resp_a'}", "{'\\u0069d':'resp_east.1ef772aa..a'}"),
                Arguments.of(
                        "{'item_id':'resp_a','response_id':'resp_b','text':'resp_c','IDs':'resp_d'}",
                        "{'item_id':'resp_a','response_id':'resp_b','text':'resp_c','IDs':'resp_d'}"),
                // Any letter case, as Go's encoding/json and .NET's parsers match a member to a field: 'ſ' reads as
                // 's' (Unicode simple folding), 'ı' as 'i' (ordinal ignore-case), written plainly or escaped.
                Arguments.of(
                        "{'ID':'resp_a','Previous_Response_Id':'resp_b','CONVERSATION':{'Id':'conv_c'},'iD':'resp_d'}",
                        "{'ID':'resp_east.1ef772aa..a','Previous_Response_Id':'resp_east.1ef772aa..b',"
                                + "'CONVERSATION':{'Id':'conv_east.1ef772aa..c'},'iD':'resp_east.1ef772aa..d'}"),
                // A C parser (cJSON) reads a name up to an escaped NUL.
                Arguments.of("{'id\\u0000x':'resp_a'}", "{'id\\u0000x':'resp_east.1ef772aa..a'}"),
                Arguments.of(
                        "{'\\u0131d':'resp_a','previou\\u017f_response_id':'resp_b','converſation':'conv_c',"
                                + "'ıD':'resp_d'}",
                        "{'\\u0131d':'resp_east.1ef772aa..a','previou\\u017f_response_id':'resp_east.1ef772aa..b',"
                                + "'converſation':'conv_east.1ef772aa..c','ıD':'resp_east.1ef772aa..d'}"),
                Arguments.of(
                        "{'id':['resp_a'],'conversation':{'ids':'conv_a'}}",
                        "{'id':['resp_a'],'conversation':{'ids':'conv_a'}}"),
                Arguments.of("{'text':'{\\'id\\':\\'resp_a\\'}'}", "{'text':'{\\'id\\':\\'resp_a\\'}'}"),
                Arguments.of(
                        "{'id':'resp\\u005fa','previous_response_id':'resp_\\u0061','conversation':'\\u0063onv_b'}",
                        "{'id':'resp_east.1ef772aa..a','previous_response_id':'resp_east.1ef772aa..\\u0061',"
                                + "'conversation':'conv_east.1ef772aa..b'}"),
                Arguments.of(
                        "{'id':'\\u006dsg_a','text':'\\u0072esp_a'}", "{'id':'\\u006dsg_a','text':'\\u0072esp_a'}"),
                Arguments.of("{'id':'resp_east.1ef772aa..a'}", "{'id':'resp_east.1ef772aa..a'}"),
                Arguments.of("{'id':'resp_','conversation':'conv_a b'}", "{'id':'resp_','conversation':'conv_a b'}"),
                Arguments.of(
                        "{'id':5,'conversation':null,'previous_response_id':true}",
                        "{'id':5,'conversation':null,'previous_response_id':true}"),
                Arguments.of("{'id':'RESP_a','conversation':'msg_a'}", "{'id':'RESP_a','conversation':'msg_a'}"),
                Arguments.of("['resp_a',{'id':'resp_b'}]", "['resp_a',{'id':'resp_east.1ef772aa..b'}]"),
                Arguments.of("'resp_a'", "'resp_a'"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("answers")
    void tagJson_answer_tagsExactlyStoredIdMembers(String body, String expected) {
        assertThat(text(tagger.tagJson(utf8(json(body))))).isEqualTo(json(expected));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(
            strings = {
                "",
                "   ",
                "data: [DONE]",
                "[DONE]",
                "{\"id\":\"resp_a\"",
                "{\"id\":\"resp_a\"} x",
                "{\"id\":\"resp_a\"}{}",
                "{\"id\":\"resp_a\",}",
                "{\"id\":\"resp_a\" \"x\":1}",
                "{\"id\":'resp_a'}",
                "{\"id\":\"resp_a\",\"n\":01}",
                "{\"id\":\"resp_a\",\"n\":NaN}",
                "{\"id\":\"resp_a\",\"s\":\"tab\there\"}",
                "{\"id\":\"resp_a\",\"s\":\"\\x\"}",
                "\ufeff{\"id\":\"resp_a\"}",
            })
    void tagJson_notOneJsonText_returnsBodyUnchanged(String body) {
        byte[] bytes = utf8(body);
        assertThat(tagger.tagJson(bytes)).isSameAs(bytes);
    }

    @Test
    void tagJson_invalidUtf8InAString_returnsBodyUnchanged() {
        byte[] bytes = utf8("{\"id\":\"resp_a\",\"text\":\"xx\"}");
        bytes[bytes.length - 3] = (byte) 0xC0; // an overlong lead byte
        assertThat(tagger.tagJson(bytes)).isSameAs(bytes);
    }

    @Test
    void tagJson_nothingToTag_returnsTheSameArray() {
        byte[] bytes = utf8(json("{'id':'msg_a','output':[]}"));
        assertThat(tagger.tagJson(bytes)).isSameAs(bytes);
    }

    @Test
    void tagJson_tagFunctionRefusesOne_othersStillTagged() {
        ResponseIdTagger picky = new ResponseIdTagger(id -> {
            if (id.equals("resp_b")) {
                throw new IllegalArgumentException("refused");
            }
            return Fixtures.TAG.apply(id);
        });
        assertThat(text(picky.tagJson(
                        utf8(json("{'id':'resp_a','previous_response_id':'resp_b','conversation':'conv_c'}")))))
                .isEqualTo(
                        json(
                                "{'id':'resp_east.1ef772aa..a','previous_response_id':'resp_b','conversation':'conv_east.1ef772aa..c'}"));
    }

    @Test
    void tagJson_atTheDepthLimit_tags() {
        // 255 arrays and the object inside them: 256 containers, the keyer's limit too.
        int arrays = JsonTokenizer.MAX_DEPTH - 1;
        String body = "[".repeat(arrays) + "{\"id\":\"resp_a\"}" + "]".repeat(arrays);
        String out = text(tagger.tagJson(utf8(body)));
        assertThat(out).isEqualTo("[".repeat(arrays) + "{\"id\":\"resp_east.1ef772aa..a\"}" + "]".repeat(arrays));
    }

    /**
     * The strict tagger shares the keyer's tokenizer and so its depth limit: an answer nested deeper than 256
     * containers, which no engine writes, comes back unchanged after one linear scan and without a stack overflow
     * (the gateway then tags it as past a flaw: {@code JsonIdStreamTest.stream_deeperThanTheLimit_idsPastTheLimitTaggedToo}).
     */
    @ParameterizedTest
    @ValueSource(ints = {JsonTokenizer.MAX_DEPTH, 100_000})
    void tagJson_deeperThanTheLimit_returnsBodyUnchanged(int arrays) {
        byte[] bytes = utf8("[".repeat(arrays) + "{\"id\":\"resp_a\"}" + "]".repeat(arrays));
        assertThat(tagger.tagJson(bytes)).isSameAs(bytes);
    }

    @Test
    void tagJson_unclosedDeepNesting_returnsBodyUnchanged() {
        byte[] bytes = utf8("{\"a\":".repeat(200_000) + "{\"id\":\"resp_a\"}");
        assertThat(tagger.tagJson(bytes)).isSameAs(bytes);
    }

    @Test
    void tagJson_randomJson_matchesIndependentExpectation() {
        int[] changed = {0};
        SeededTrials.forAll(0x7A6L, 5_000, RandomJson::generate, sample -> {
            assertThat(text(tagger.tagJson(utf8(sample.json())))).isEqualTo(sample.tagged());
            changed[0] += sample.tagged().equals(sample.json()) ? 0 : 1;
        });
        // The generator must exercise tagging, not only texts that stay as they are.
        assertThat(changed[0]).isGreaterThan(500);
    }

    @Test
    void tagJson_tenThousandRandomBodies_neverThrowsAndChangesNothing() {
        SeededTrials.forAll(0xB0D1L, 10_000, Hostile::randomBytes, bytes -> {
            // Random bytes hold no id-prefixed member value, so whatever they are, they come back unchanged.
            assertThat(tagger.tagJson(bytes)).isSameAs(bytes);
        });
    }

    @Test
    void tagJson_mutatedResponses_neverThrow() {
        byte[] original = utf8(Fixtures.RESPONSE);
        SeededTrials.forAll(0x5EEDL, 10_000, random -> Hostile.mutate(original, random), bytes -> {
            byte[] out = tagger.tagJson(bytes);
            assertThat(out.length).isGreaterThanOrEqualTo(bytes.length);
        });
    }
}

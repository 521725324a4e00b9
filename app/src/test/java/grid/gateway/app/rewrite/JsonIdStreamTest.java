package grid.gateway.app.rewrite;

import static grid.gateway.app.rewrite.Fixtures.text;
import static grid.gateway.app.rewrite.Fixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.testing.SeededTrials;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Tagging a JSON answer as it streams: the same bytes as the whole-text tagger for every text it accepts, whatever the
 * chunking, holding at most one id value, and never more than it must when the text breaks (docs/design.md §H20).
 */
class JsonIdStreamTest {
    private static final ResponseIdTagger WHOLE = new ResponseIdTagger(Fixtures.TAG);

    /** Streams {@code bytes} cut at {@code cuts}; checks the held bytes after every piece. */
    private static byte[] stream(byte[] bytes, int... cuts) {
        JsonIdStream stream = new JsonIdStream(Fixtures.TAG);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        EventSink sink = (b, off, len) -> {
            assertThat(len).isPositive();
            out.write(b, off, len);
        };
        int from = 0;
        for (int cut : cuts) {
            stream.accept(bytes, from, cut - from, sink);
            assertThat(stream.held()).isLessThanOrEqualTo(JsonIdStream.MAX_VALUE);
            from = cut;
        }
        stream.accept(bytes, from, bytes.length - from, sink);
        stream.finish(sink);
        return out.toByteArray();
    }

    private static int[] randomCuts(SplittableRandom random, int length) {
        return random.ints(random.nextInt(12), 0, length + 1).sorted().toArray();
    }

    @Test
    void stream_vllmResponseSplitAtEveryByte_sameAsTheWholeTagger() {
        byte[] response = utf8(Fixtures.RESPONSE);
        byte[] whole = WHOLE.tagJson(response);
        assertThat(whole).isNotEqualTo(response);
        for (int cut = 0; cut <= response.length; cut++) {
            assertThat(text(stream(response, cut))).as("cut at %d", cut).isEqualTo(text(whole));
        }
    }

    @Test
    void stream_randomJsonInRandomPieces_sameAsTheWholeTagger() {
        SeededTrials.forAll(
                0x57AEL, 5_000, random -> new Object[] {RandomJson.generate(random), random.nextLong()}, t -> {
                    RandomJson.Sample sample = (RandomJson.Sample) t[0];
                    byte[] json = utf8(sample.json());
                    int[] cuts = randomCuts(new SplittableRandom((Long) t[1]), json.length);
                    assertThat(text(stream(json, cuts))).isEqualTo(sample.tagged());
                });
    }

    @Test
    void stream_hugeValuesAroundTheIds_eachIdTagged_nothingHeldButAnIdValue() {
        String json = "{\"id\":\"resp_a\",\"instructions\":\"" + "z".repeat(1 << 20) + "\",\"conversation\":{\"id\":"
                + "\"conv_c\"},\"previous_response_id\":\"resp_p\",\"n\":[1,2.5e3,true,null,{\"id\":\"resp_q\"}]}";
        byte[] bytes = utf8(json);
        int[] cuts = new int[40];
        for (int i = 0; i < cuts.length; i++) {
            cuts[i] = (i + 1) * (bytes.length / 41);
        }

        assertThat(text(stream(bytes, cuts))).isEqualTo(text(WHOLE.tagJson(bytes)));
    }

    @Test
    void stream_idValueLongerThanAnyTag_handedOnAsItIs() {
        String json = "{\"id\":\"resp_" + "a".repeat(JsonIdStream.MAX_VALUE) + "\",\"x\":1}";

        assertThat(text(stream(utf8(json), 7, 300, 1040))).isEqualTo(json);
    }

    @Test
    void stream_textBreaksAfterAnId_idsOnBothSidesOfTheFlawTagged() {
        String json = "{\"id\":\"resp_a\",\"oops\" \"x\",\"previous_response_id\":\"resp_b\"}";

        assertThat(text(stream(utf8(json))))
                .isEqualTo(
                        json.replace("resp_a", Fixtures.tagged("resp_a")).replace("resp_b", Fixtures.tagged("resp_b")));
    }

    @Test
    void stream_textBreaksOrEndsInsideAnIdValue_heldBytesHandedOnAsTheStartOfItsTag() {
        String json = "{\"id\":\"resp_a\u0001bc\"}";

        assertThat(text(stream(utf8(json), 9))).isEqualTo(json.replace("resp_a", Fixtures.tagged("resp_a")));
        assertThat(text(stream(utf8("{\"id\":\"resp_a")))).isEqualTo("{\"id\":\"" + Fixtures.tagged("resp_a"));
        assertThat(text(stream(utf8("{\"id\":\"re")))).isEqualTo("{\"id\":\"re");
    }

    @Test
    void stream_deeperThanTheLimit_idsPastTheLimitTaggedToo() {
        // Go's encoding/json reads 10,000 levels: the id past the strict limit is read, so it is tagged.
        String deep = "[".repeat(300) + "{\"id\":\"resp_a\"}" + "]".repeat(300);
        String shallow = "{\"id\":\"resp_a\",\"d\":" + deep + "}";

        assertThat(text(stream(utf8(shallow)))).isEqualTo(shallow.replace("resp_a", Fixtures.tagged("resp_a")));
    }

    @Test
    void stream_tenThousandRandomByteStrings_neverThrowAndPassThrough() {
        SeededTrials.forAll(
                0xB17EL, 10_000, random -> new Object[] {Hostile.randomBytes(random), random.nextLong()}, t -> {
                    byte[] bytes = (byte[]) t[0];
                    int[] cuts = randomCuts(new SplittableRandom((Long) t[1]), bytes.length);
                    // Random bytes hold no id-prefixed member value: every byte comes out as it went in.
                    assertThat(stream(bytes, cuts)).isEqualTo(bytes);
                });
    }

    @Test
    void stream_mutatedResponses_neverThrow_neverLoseABytesWorth() {
        byte[] original = utf8(Fixtures.RESPONSE);
        SeededTrials.forAll(0x5EEEL, 10_000, random -> Hostile.mutate(original, random), bytes -> {
            assertThat(stream(bytes, bytes.length / 3).length).isGreaterThanOrEqualTo(bytes.length);
        });
    }

    @Test
    void handOnHeld_atEveryByteOfEachId_nothingHeld_everyByteSoFarOut_theWholeTextTaggedAsUnsplit() {
        // An engine trickling an id a byte at a time: the relay hands on what the tagger holds after an idle timeout.
        String json = "{\"id\":\"resp_abc123\",\"conversation\":{\"id\":\"conv_q-7\"},\"x\":\"resp_text\"}";
        byte[] bytes = utf8(json);
        String whole = text(WHOLE.tagJson(bytes));
        String middle = "east.1ef772aa..";
        for (int cut = 0; cut <= bytes.length; cut++) {
            JsonIdStream stream = new JsonIdStream(Fixtures.TAG);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            EventSink sink = out::write;
            stream.accept(bytes, 0, cut, sink);
            stream.handOnHeld(sink);
            assertThat(stream.held()).as("cut at %d", cut).isZero();
            assertThat(text(out.toByteArray()).replace(middle, ""))
                    .as("out at a hand-on after %d bytes", cut)
                    .isEqualTo(json.substring(0, cut));
            stream.accept(bytes, cut, bytes.length - cut, sink);
            stream.finish(sink);
            assertThat(text(out.toByteArray())).as("cut at %d", cut).isEqualTo(whole);
        }
    }

    @Test
    void handOnHeld_atEveryByteOfIdsWrittenWithEscapes_readsAsTheWholeTextTagged() {
        // Prefixes and bodies written with escapes, a surrogate pair and a dot: as a client reads it, the text is the
        // whole-text tagger's, wherever the hand-on falls (inside an escape too).
        String json = "{\"id\":\"\\u0072\\u0065sp_a\\u0062c\",\"conversation\":{\"id\":\"con\\u0076_\\u0071\"},"
                + "\"previous_response_id\":\"r\\u0065sp_\\ud83d\\ude00x.y\",\"x\":\"\\u0072esp_text\"}";
        byte[] bytes = utf8(json);
        ResponseIdTagger whole = new ResponseIdTagger(Fixtures.TAG_ANY);
        JsonObject expected = parse(whole.tagJson(bytes));
        assertThat(expected.getString("id")).isEqualTo("resp_east.1ef772aa..abc");
        assertThat(expected.getString("previous_response_id")).isEqualTo("resp_east.1ef772aa..\ud83d\ude00x.y");
        for (int cut = 0; cut <= bytes.length; cut++) {
            JsonIdStream stream = new JsonIdStream(Fixtures.TAG_ANY);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            EventSink sink = out::write;
            stream.accept(bytes, 0, cut, sink);
            stream.handOnHeld(sink);
            assertThat(stream.held()).as("cut at %d", cut).isZero();
            stream.accept(bytes, cut, bytes.length - cut, sink);
            stream.finish(sink);
            assertThat(parse(out.toByteArray())).as("cut at %d", cut).isEqualTo(expected);
        }
    }

    private static JsonObject parse(byte[] json) {
        try (JsonReader reader = Json.createReader(new ByteArrayInputStream(json))) {
            return reader.readObject();
        }
    }

    @Test
    void handOnHeld_valueWithoutAnIdPrefix_handedOnAsItCame() {
        // Not an id prefix as a client reads it, however written: it goes out untouched.
        for (String value : new String[] {"msg_abc", "\\u006dsg_a", "r\\u00e9sp_", "rex", "resq_"}) {
            String json = "{\"id\":\"" + value + "\"}";
            byte[] bytes = utf8(json);
            int cut = bytes.length - 3; // inside the value
            JsonIdStream stream = new JsonIdStream(Fixtures.TAG);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            EventSink sink = out::write;
            stream.accept(bytes, 0, cut, sink);
            stream.handOnHeld(sink);
            assertThat(text(out.toByteArray())).as(value).isEqualTo(text(Arrays.copyOf(bytes, cut)));
            stream.accept(bytes, cut, bytes.length - cut, sink);
            stream.finish(sink);
            assertThat(text(out.toByteArray())).as(value).isEqualTo(json);
        }
    }
}

package grid.gateway.app.rewrite;

import static grid.gateway.app.rewrite.Fixtures.text;
import static grid.gateway.app.rewrite.Fixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import grid.gateway.routing.testing.SeededTrials;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Tagging the stored ids of server-sent event streams, event by event, whatever the chunking (docs/design.md §5, §9). */
class SseIdTaggerTest {
    private static final ResponseIdTagger TAGGER = new ResponseIdTagger(Fixtures.TAG);
    private static final String DATA_A = "data: {\"id\":\"resp_a\"}";
    private static final String DATA_A_TAGGED = "data: {\"id\":\"resp_east.1ef772aa..a\"}";
    /** What a tag puts in after an engine id's prefix. */
    private static final String MIDDLE = "east.1ef772aa..";

    /** What one run handed to the sink: each call's bytes, copied. */
    private record Run(List<byte[]> raw) {
        List<String> calls() {
            return raw.stream().map(Fixtures::text).toList();
        }

        byte[] bytes() {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            raw.forEach(out::writeBytes);
            return out.toByteArray();
        }

        String joined() {
            return text(bytes());
        }

        /**
         * The calls with the LF of a blank line that came by itself put back after the CR before it: what an event
         * whose blank line's CR ended a read is, however the stream was cut.
         */
        List<String> events() {
            List<String> events = new ArrayList<>();
            for (String call : calls()) {
                if (call.equals("\n") && !events.isEmpty() && events.getLast().endsWith("\r")) {
                    events.add(events.removeLast() + call);
                } else {
                    events.add(call);
                }
            }
            return events;
        }
    }

    /** Random bytes to feed, and the seed that draws their limit and cuts. */
    private record Trial(byte[] bytes, long seed) {
        @Override
        public String toString() {
            return Arrays.toString(bytes) + " seed " + seed;
        }
    }

    /** Feeds {@code stream} cut at {@code cuts} (increasing offsets), then finishes. */
    private static Run run(byte[] stream, int limit, int... cuts) {
        SseIdTagger tagger = new SseIdTagger(TAGGER, limit);
        List<byte[]> calls = new ArrayList<>();
        EventSink sink = (bytes, off, len) -> {
            assertThat(len).isPositive();
            calls.add(Arrays.copyOfRange(bytes, off, off + len));
        };
        int from = 0;
        for (int cut : cuts) {
            tagger.accept(stream, from, cut - from, sink);
            assertThat(tagger.buffered()).isLessThanOrEqualTo(limit + 1);
            from = cut;
        }
        tagger.accept(stream, from, stream.length - from, sink);
        tagger.finish(sink);
        assertThat(tagger.buffered()).isZero();
        return new Run(calls);
    }

    private static Run run(String stream, int... cuts) {
        return run(utf8(stream), SseIdTagger.DEFAULT_MAX_EVENT_BYTES, cuts);
    }

    private static int[] randomCuts(SplittableRandom random, int length, int maxCuts) {
        return random.ints(random.nextInt(maxCuts + 1), 0, length + 1).sorted().toArray();
    }

    @Test
    void stream_vllmResponsesStream_tagsResponseObjectsOnlyOneCallPerEvent() {
        List<String> events = ResponsesStream.events(4);

        Run run = run(String.join("", events));

        assertThat(run.calls()).containsExactlyElementsOf(ResponsesStream.tagged(events));
        // Deltas keep the model's text, ids and look-alikes included.
        assertThat(run.calls().get(3)).contains("\"delta\":\"see resp_fake \"");
        assertThat(run.calls().get(4)).contains("\\\"id\\\":\\\"resp_fake\\\"");
        assertThat(run.calls().getFirst()).contains("\"id\":\"resp_east.1ef772aa..6f1c2b9e0d4a4c8f9b3e2a1d0c9b8a7f\"");
    }

    @Test
    void accept_splitAtEveryByte_sameEventsAsUnsplit() {
        String stream = String.join("", ResponsesStream.events(2)).replace("\n", "\r\n");
        List<String> unsplit = run(stream).calls();
        byte[] bytes = utf8(stream);
        for (int cut = 0; cut <= bytes.length; cut++) {
            assertThat(run(bytes, SseIdTagger.DEFAULT_MAX_EVENT_BYTES, cut).events())
                    .as("cut at %d", cut)
                    .isEqualTo(unsplit);
        }
        int[] everyByte = java.util.stream.IntStream.range(1, bytes.length).toArray();
        assertThat(run(bytes, SseIdTagger.DEFAULT_MAX_EVENT_BYTES, everyByte).events())
                .isEqualTo(unsplit);
    }

    @Test
    void accept_seededRandomSplitsOfLongStreams_sameEventsAsUnsplit() {
        List<String> events = ResponsesStream.events(400);
        List<String> expected = ResponsesStream.tagged(events);
        for (String newline : List.of("\n", "\r\n", "\r")) {
            byte[] stream = utf8(String.join("", events).replace("\n", newline));
            List<String> unsplit =
                    run(stream, SseIdTagger.DEFAULT_MAX_EVENT_BYTES).calls();
            assertThat(unsplit)
                    .isEqualTo(
                            expected.stream().map(e -> e.replace("\n", newline)).toList());
            SeededTrials.forAll(
                    newline.hashCode(),
                    200,
                    random -> randomCuts(random, stream.length, 60),
                    cuts -> assertThat(run(stream, SseIdTagger.DEFAULT_MAX_EVENT_BYTES, cuts)
                                    .events())
                            .isEqualTo(unsplit));
        }
    }

    static Stream<Arguments> framings() {
        return Stream.of(
                Arguments.of(
                        DATA_A + "\n\n" + DATA_A + "\n\n", List.of(DATA_A_TAGGED + "\n\n", DATA_A_TAGGED + "\n\n")),
                Arguments.of(DATA_A + "\r\n\r\n: ping\r\n\r\n", List.of(DATA_A_TAGGED + "\r\n\r\n", ": ping\r\n\r\n")),
                Arguments.of(
                        DATA_A + "\r\r" + DATA_A + "\r\r", List.of(DATA_A_TAGGED + "\r\r", DATA_A_TAGGED + "\r\r")),
                Arguments.of(
                        DATA_A + "\r\r\n" + DATA_A + "\n\r\n",
                        List.of(DATA_A_TAGGED + "\r\r\n", DATA_A_TAGGED + "\n\r\n")),
                Arguments.of(
                        DATA_A + "\r\n\n" + DATA_A + "\n\r", List.of(DATA_A_TAGGED + "\r\n\n", DATA_A_TAGGED + "\n\r")),
                Arguments.of("\n\r\n" + DATA_A + "\n\n", List.of("\n", "\r\n", DATA_A_TAGGED + "\n\n")),
                Arguments.of(
                        "event: response.created\r" + DATA_A + "\r\r",
                        List.of("event: response.created\r" + DATA_A_TAGGED + "\r\r")),
                // A trailing event that no blank line ended is tagged too: a lenient reader reads it.
                Arguments.of(DATA_A + "\n\n" + DATA_A, List.of(DATA_A_TAGGED + "\n\n", DATA_A_TAGGED)),
                Arguments.of(DATA_A + "\n", List.of(DATA_A_TAGGED + "\n")),
                Arguments.of("data: [DONE]\n\n", List.of("data: [DONE]\n\n")),
                Arguments.of(
                        ": keep-alive\n\nretry: 1000\nid: resp_a\nevent: x\n" + DATA_A + "\n\n",
                        List.of(
                                ": keep-alive\n\n",
                                "retry: 1000\nid: resp_east.1ef772aa..a\nevent: x\n" + DATA_A_TAGGED + "\n\n")),
                Arguments.of(
                        "data:{\"conversation\":\"conv_b\"}\n\n",
                        List.of("data:{\"conversation\":\"conv_east.1ef772aa..b\"}\n\n")),
                Arguments.of(
                        "data:  {\"id\":\"resp_a\"} \n\n", List.of("data:  {\"id\":\"resp_east.1ef772aa..a\"} \n\n")),
                // Data that is not one JSON text has its ids tagged, as an event too long to hold: before its flaw as
                // members, past it every id prefix (a lenient reader reads on).
                Arguments.of("data: {\"id\":\"resp_a\"\n\n", List.of("data: {\"id\":\"resp_east.1ef772aa..a\"\n\n")),
                Arguments.of(
                        "data: {\"id\":\"resp_a\"} x\n\n", List.of("data: {\"id\":\"resp_east.1ef772aa..a\"} x\n\n")),
                Arguments.of(
                        "data: {\"x\":NaN,\"id\":\"resp_a\"}\n\n",
                        List.of("data: {\"x\":NaN,\"id\":\"resp_east.1ef772aa..a\"}\n\n")),
                Arguments.of("data: {\"id\":'resp_a'}\n\n", List.of("data: {\"id\":'resp_east.1ef772aa..a'}\n\n")),
                // Lines no event-stream reader reads: every id prefix tagged, as past a flaw (a client may parse them
                // as JSON).
                Arguments.of(
                        "datum: {\"id\":\"resp_a\"}\n\n", List.of("datum: {\"id\":\"resp_east.1ef772aa..a\"}\n\n")),
                Arguments.of("Data: {\"id\":\"resp_a\"}\n\n", List.of("Data: {\"id\":\"resp_east.1ef772aa..a\"}\n\n")),
                Arguments.of(
                        "data: {\"id\":\ndata: \"resp_a\",\r\ndata\ndata:\"conversation\":{\"id\":\"conv_b\"}}\n\n",
                        List.of("data: {\"id\":\ndata: \"resp_east.1ef772aa..a\",\r\ndata\ndata:\"conversation\":"
                                + "{\"id\":\"conv_east.1ef772aa..b\"}}\n\n")),
                Arguments.of(
                        "data: {\"id\":\"resp_a\"}\ndata: {\"id\":\"resp_b\"}\n\n",
                        List.of(
                                "data: {\"id\":\"resp_east.1ef772aa..a\"}\ndata: {\"id\":\"resp_east.1ef772aa..b\"}\n\n")));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("framings")
    void stream_framingAndFields_eventsAsExpected(String stream, List<String> expected) {
        assertThat(run(stream).calls()).isEqualTo(expected);
        SeededTrials.forAll(
                stream.hashCode(),
                100,
                random -> randomCuts(random, utf8(stream).length, 8),
                cuts -> assertThat(run(stream, cuts).events()).isEqualTo(expected));
    }

    @Test
    void accept_eventBeyondLimit_taggedAsItStreamsInPieces_thenWholeAgain() {
        String big = "data: {\"id\":\"resp_a\",\"text\":\"" + "x".repeat(300) + "\"}\n\n";
        String stream = DATA_A + "\n\n" + big + DATA_A + "\n\n";

        Run run = run(utf8(stream), 64, 10, 100, 150, 200, 290);

        String bigTagged = big.replace("resp_a", "resp_east.1ef772aa..a");
        assertThat(run.joined()).isEqualTo(DATA_A_TAGGED + "\n\n" + bigTagged + DATA_A_TAGGED + "\n\n");
        assertThat(run.calls().getFirst()).isEqualTo(DATA_A_TAGGED + "\n\n");
        assertThat(run.calls().getLast()).isEqualTo(DATA_A_TAGGED + "\n\n");
        // The big event went out in several pieces, none over the limit plus one chunk's share.
        assertThat(run.calls()).hasSizeGreaterThan(3);
    }

    @Test
    void accept_eventsAroundTheLimit_taggedWholeOrAsTheyStream() {
        String crlfEnd = DATA_A + "\r\r\n"; // a line ending CR, then a blank line CRLF
        int length = utf8(crlfEnd).length;

        assertThat(run(utf8(crlfEnd), length).calls()).containsExactly(DATA_A_TAGGED + "\r\r\n");
        // The blank line's CR fits, so its LF joins the event past the limit.
        assertThat(run(utf8(crlfEnd), length - 1).calls()).containsExactly(DATA_A_TAGGED + "\r\r\n");
        // Past the limit, the event is tagged as it streams: the same bytes come out.
        assertThat(run(utf8(crlfEnd), length - 2).joined()).isEqualTo(DATA_A_TAGGED + "\r\r\n");
        assertThat(run(utf8(DATA_A + "\n\n"), DATA_A.length() + 2).joined()).isEqualTo(DATA_A_TAGGED + "\n\n");
        assertThat(run(utf8(DATA_A + "\n\n"), DATA_A.length() + 1).joined()).isEqualTo(DATA_A_TAGGED + "\n\n");
    }

    @Test
    void accept_responsesStreamWithAnyLimit_sameAsHeldWhole() {
        // Every limit from holding nothing to holding each event whole gives the same stream, tagged.
        byte[] stream = utf8(String.join("", ResponsesStream.events(12)));
        String whole = run(stream, SseIdTagger.DEFAULT_MAX_EVENT_BYTES).joined();
        assertThat(whole).isNotEqualTo(text(stream));
        for (int limit = 1; limit < 600; limit += 7) {
            assertThat(run(stream, limit).joined()).as("limit %d", limit).isEqualTo(whole);
        }
    }

    @Test
    void accept_hugeEventAtTheDefaultLimit_idsTaggedHoldingAtMostTheLimit() {
        // A response.created event echoing 4 MiB of instructions: its id comes first, previous_response_id last.
        String event = "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":"
                + "\"resp_a\",\"instructions\":\"" + "y".repeat(4 << 20) + "\",\"previous_response_id\":\"resp_p\"}}"
                + "\n\n";
        byte[] bytes = utf8(event);
        int[] cuts = new int[64];
        for (int i = 0; i < cuts.length; i++) {
            cuts[i] = (i + 1) * (bytes.length / 65);
        }

        Run run = run(bytes, SseIdTagger.DEFAULT_MAX_EVENT_BYTES, cuts);

        assertThat(run.joined())
                .isEqualTo(event.replace("resp_a", "resp_east.1ef772aa..a").replace("resp_p", "resp_east.1ef772aa..p"));
    }

    @Test
    void accept_randomSplitsWithSmallLimits_outputIndependentOfChunking() {
        byte[] stream = utf8(String.join("", ResponsesStream.events(30)).replace("\n", "\r\n"));
        SeededTrials.forAll(0x11L, 500, random -> new int[] {200 + random.nextInt(2_000), random.nextInt()}, params -> {
            int limit = params[0];
            String unsplit = run(stream, limit).joined();
            int[] cuts = randomCuts(new SplittableRandom(params[1]), stream.length, 40);
            assertThat(run(stream, limit, cuts).joined()).isEqualTo(unsplit);
        });
    }

    @Test
    void accept_eventEndedByABlankLinesCrAsTheLastByteRead_handedOnAtOnce_itsLfAfterIt() {
        // A client dispatches an event at its blank line's CR (CR-only framing), so the event goes on then: an engine
        // that then falls silent must not keep a complete event from its client.
        for (String first : List.of("event: e\r" + DATA_A + "\r\r", "event: e\r\n" + DATA_A + "\r\n\r")) {
            SseIdTagger tagger = new SseIdTagger(TAGGER, 1024);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            EventSink sink = out::write;
            byte[] bytes = utf8(first);
            tagger.accept(bytes, 0, bytes.length, sink);

            assertThat(text(out.toByteArray())).isEqualTo(first.replace(DATA_A, DATA_A_TAGGED));
            assertThat(tagger.holds()).isFalse();
            byte[] next = utf8("\n" + DATA_A + "\r\r");
            tagger.accept(next, 0, next.length, sink);
            tagger.finish(sink);
            assertThat(text(out.toByteArray()))
                    .isEqualTo((first + "\n" + DATA_A + "\r\r").replace(DATA_A, DATA_A_TAGGED));
        }
    }

    @Test
    void finish_trailingEventWithoutItsBlankLine_taggedWhateverItsLengthOrHandOn() {
        // A WHATWG reader drops such an event, but a lenient one (one that dispatches what is left at the end) reads
        // it: its ids go out tagged, as they do when the event is long enough to be tagged as it streams.
        for (String tail :
                List.of(DATA_A, DATA_A + "\n", "event: e\r\n" + DATA_A + "\r\n", "data: {\"id\":\n" + DATA_A)) {
            String stream = DATA_A + "\n\n" + tail;
            String expected = DATA_A_TAGGED + "\n\n" + tail.replace(DATA_A, DATA_A_TAGGED);
            for (int limit : new int[] {SseIdTagger.DEFAULT_MAX_EVENT_BYTES, 8}) {
                assertThat(run(utf8(stream), limit).joined())
                        .as("limit %d: %s", limit, tail)
                        .isEqualTo(expected);
            }
        }
        // Cut short inside an id value: the id goes out as the start of its tag (a partial-JSON reader reads it).
        assertThat(run("data: {\"id\":\"resp_a").joined()).isEqualTo("data: {\"id\":\"resp_east.1ef772aa..a");
    }

    /**
     * A body labelled an event stream that a client parses as JSON (a non-streamed request, read whatever the label):
     * the client reads the lines no event-stream reader reads, so an id prefix there gets the serving cluster's
     * middle, whether the event is held whole or tagged as it streams, however it is cut.
     */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "\n{\"id\":\"resp_east.other..forged\",\"object\":\"response\"}",
                "{\"id\"\n:\"resp_east.other..forged\"}\n\n",
                "id: conv_x\n" + "event: e\n\n",
                ": \\u0072esp_x\n\n"
            })
    void otherLinesNamingAnId_taggedAsPastAFlaw_heldOrStreamed_atAnyCut(String stream) {
        String expected = stream.replace("resp_", "resp_" + MIDDLE)
                .replace("conv_", "conv_" + MIDDLE)
                .replace("\\u0072esp_", "\\u0072esp_" + MIDDLE);
        byte[] bytes = utf8(stream);
        for (int limit : new int[] {SseIdTagger.DEFAULT_MAX_EVENT_BYTES, 3}) {
            for (int cut = 0; cut <= bytes.length; cut++) {
                assertThat(run(bytes, limit, cut).joined())
                        .as("limit %d, cut at %d", limit, cut)
                        .isEqualTo(expected);
            }
        }
    }

    @Test
    void vllmEventLines_noIdPrefix_eventHeldWholeAndUnchangedButItsData() {
        // "event: response.output_text.delta" has "response" and "_text", no id prefix: the event goes whole, in one
        // call, as every vLLM event does.
        String event = "event: response.output_text.delta\n" + DATA_A + "\n\n";
        assertThat(run(event).calls()).containsExactly("event: response.output_text.delta\n" + DATA_A_TAGGED + "\n\n");
    }

    @Test
    void finish_streamEndsAfterBlankCr_eventTagged() {
        assertThat(run(DATA_A + "\r\r").calls()).containsExactly(DATA_A_TAGGED + "\r\r");
    }

    @Test
    void finish_afterFinish_taggerStartsAfresh() {
        SseIdTagger tagger = new SseIdTagger(TAGGER, 1024);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        EventSink sink = out::write;
        byte[] partial = utf8("data: {\"id\":\"resp_a\"}\r\n");
        tagger.accept(partial, 0, partial.length, sink);
        tagger.finish(sink);
        byte[] next = utf8(DATA_A + "\n\n");
        tagger.accept(next, 0, next.length, sink);
        tagger.finish(sink);

        assertThat(text(out.toByteArray())).isEqualTo(DATA_A_TAGGED + "\r\n" + DATA_A_TAGGED + "\n\n");
    }

    @Test
    void accept_tenThousandRandomStreams_neverThrowsAndPassesBytesThrough() {
        SeededTrials.forAll(0x55EL, 10_000, r -> new Trial(Hostile.randomBytes(r), r.nextLong()), trial -> {
            SplittableRandom random = new SplittableRandom(trial.seed());
            int limit = 1 + random.nextInt(64);
            byte[] bytes = trial.bytes();
            // Random bytes name no stored id, so every byte comes out as it went in, whatever the limit.
            assertThat(run(bytes, limit, randomCuts(random, bytes.length, 6)).bytes())
                    .isEqualTo(bytes);
        });
    }

    @Test
    void constructor_limitBelowOne_refused() {
        assertThatThrownBy(() -> new SseIdTagger(TAGGER, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void accept_rangeOutsideChunk_refused() {
        SseIdTagger tagger = new SseIdTagger(TAGGER, 64);
        assertThatThrownBy(() -> tagger.accept(new byte[4], 2, 3, (b, o, l) -> {}))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void heldEventHandedOnAtAnyByte_comesOutTaggedAsWhole_theNextEventHeldAgain() {
        String stream = "event: e\n" + DATA_A + "\n\n" + DATA_A + "\n\n";
        String expected = "event: e\n" + DATA_A_TAGGED + "\n\n" + DATA_A_TAGGED + "\n\n";
        byte[] bytes = utf8(stream);
        int firstEventEnd = stream.indexOf("\n\n") + 1; // before its blank line's last LF
        for (int cut = 1; cut < firstEventEnd; cut++) {
            SseIdTagger tagger = new SseIdTagger(TAGGER, 1024);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            EventSink sink = out::write;
            tagger.accept(bytes, 0, cut, sink);
            assertThat(tagger.holds()).as("cut at %d", cut).isTrue();
            tagger.streamHeld(sink);
            assertThat(tagger.holds()).isFalse();
            // All of it handed on, a field name or an id value being read too (an id as the start of its tag).
            assertThat(text(out.toByteArray()).replace(MIDDLE, ""))
                    .as("out at a hand-on after %d bytes", cut)
                    .isEqualTo(stream.substring(0, cut));
            int secondEventStarted = firstEventEnd + 1 + 8;
            tagger.accept(bytes, cut, secondEventStarted - cut, sink);
            assertThat(tagger.holds()).as("the next event held again").isTrue();
            tagger.accept(bytes, secondEventStarted, bytes.length - secondEventStarted, sink);
            tagger.finish(sink);
            assertThat(text(out.toByteArray())).as("cut at %d", cut).isEqualTo(expected);
        }
    }

    @Test
    void eventTaggedAsItStreams_idValueHeld_holds_handedOnAsTheStartOfItsTag() {
        // An event past the limit is tagged as it streams; an id value in it trickled in is held until handed on.
        String stream = "data: {\"text\":\"" + "x".repeat(100) + "\",\"id\":\"resp_abcdef\"}\n\n" + DATA_A + "\n\n";
        String expected = stream.replace("resp_", "resp_" + MIDDLE);
        byte[] bytes = utf8(stream);
        int insideTheId = stream.indexOf("resp_abc") + "resp_abc".length();
        SseIdTagger tagger = new SseIdTagger(TAGGER, 64);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        EventSink sink = out::write;
        tagger.accept(bytes, 0, insideTheId, sink);

        assertThat(tagger.holds()).isTrue();
        tagger.streamHeld(sink);
        assertThat(tagger.holds()).isFalse();
        assertThat(text(out.toByteArray()))
                .isEqualTo(stream.substring(0, insideTheId).replace("resp_", "resp_" + MIDDLE));
        tagger.accept(bytes, insideTheId, bytes.length - insideTheId, sink);
        tagger.finish(sink);
        assertThat(text(out.toByteArray())).isEqualTo(expected);
    }
}

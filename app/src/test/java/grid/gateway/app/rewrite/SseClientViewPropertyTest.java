package grid.gateway.app.rewrite;

import static grid.gateway.app.rewrite.Fixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.testing.SeededTrials;
import jakarta.json.JsonValue;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * What a client reads of a tagged event stream, checked against a reader written from the WHATWG grammar
 * ({@link ClientView}), not against the tagger's own framing: the same events, each event's data the same JSON value
 * with its stored ids tagged, whatever the framing, the chunking, the event limit and the hand-ons.
 */
class SseClientViewPropertyTest {
    private static final ResponseIdTagger TAGGER = new ResponseIdTagger(Fixtures.TAG_ANY);
    private static final String[] LINE_ENDS = {"\n", "\r\n", "\r"};

    /** A generated stream and how it is fed. */
    private record Trial(byte[] stream, int limit, int[] cuts, boolean[] handOns, String text) {
        @Override
        public String toString() {
            return text.replace("\r", "\\r").replace("\n", "\\n") + " limit " + limit + " cuts "
                    + java.util.Arrays.toString(cuts);
        }
    }

    @Test
    void anyFramingChunkingLimitAndHandOn_clientReadsTheSameEventsWithTheirIdsTagged() {
        SeededTrials.forAll(0x55E0L, 3_000, SseClientViewPropertyTest::trial, trial -> {
            byte[] out = feed(trial);
            List<ClientView.Event> sent = ClientView.events(trial.stream());
            List<ClientView.Event> read = ClientView.events(out);
            assertThat(read).hasSameSizeAs(sent);
            for (int i = 0; i < sent.size(); i++) {
                ClientView.Event in = sent.get(i);
                ClientView.Event got = read.get(i);
                assertThat(got.type()).isEqualTo(in.type());
                assertThat(got.lastEventId()).isEqualTo(in.lastEventId());
                Optional<JsonValue> json = ClientView.json(in.data());
                if (json.isPresent()) {
                    assertThat(ClientView.json(got.data()))
                            .as("event %d's data", i)
                            .contains(ClientView.tagged(json.get(), Fixtures.TAG_ANY));
                }
            }
        });
    }

    private static byte[] feed(Trial trial) {
        SseIdTagger tagger = new SseIdTagger(TAGGER, trial.limit());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        EventSink sink = out::write;
        int from = 0;
        for (int c = 0; c < trial.cuts().length; c++) {
            tagger.accept(trial.stream(), from, trial.cuts()[c] - from, sink);
            if (trial.handOns()[c]) {
                tagger.streamHeld(sink);
            }
            from = trial.cuts()[c];
        }
        tagger.accept(trial.stream(), from, trial.stream().length - from, sink);
        tagger.finish(sink);
        return out.toByteArray();
    }

    private static Trial trial(SplittableRandom random) {
        StringBuilder stream = new StringBuilder();
        int events = 1 + random.nextInt(4);
        for (int e = 0; e < events; e++) {
            event(random, stream);
        }
        if (random.nextInt(4) == 0) {
            stream.append("data: {\"id\":\"resp_tail\"}"); // a partial event at the end: never dispatched
        }
        String text = stream.toString();
        byte[] bytes = utf8(text);
        int[] cuts =
                random.ints(random.nextInt(10), 0, bytes.length + 1).sorted().toArray();
        boolean[] handOns = new boolean[cuts.length];
        for (int i = 0; i < handOns.length; i++) {
            handOns[i] = random.nextInt(3) == 0;
        }
        int limit = random.nextBoolean() ? SseIdTagger.DEFAULT_MAX_EVENT_BYTES : 1 + random.nextInt(200);
        return new Trial(bytes, limit, cuts, handOns, text);
    }

    /** One event: other fields and comments around data lines that carry one JSON text split at its line breaks. */
    private static void event(SplittableRandom random, StringBuilder out) {
        String end = LINE_ENDS[random.nextInt(LINE_ENDS.length)];
        field(random, out, end);
        String data =
                random.nextInt(8) == 0 ? "[DONE]" : RandomJson.generate(random).json();
        for (String piece : data.split("\r\n|\r|\n", -1)) {
            out.append(random.nextBoolean() ? "data: " : "data:").append(piece);
            out.append(LINE_ENDS[random.nextInt(LINE_ENDS.length)]);
            if (random.nextInt(5) == 0) {
                field(random, out, LINE_ENDS[random.nextInt(LINE_ENDS.length)]);
            }
        }
        out.append(LINE_ENDS[random.nextInt(LINE_ENDS.length)]);
    }

    private static void field(SplittableRandom random, StringBuilder out, String end) {
        switch (random.nextInt(8)) {
            case 0 -> out.append(": keep-alive").append(end);
            case 1 -> out.append("event: response.created").append(end);
            case 2 -> out.append("id: 7").append(end);
            case 3 -> out.append("retry: 1000").append(end);
            case 4 -> out.append("dat").append(end);
            case 5 -> out.append("event").append(end);
            default -> {}
        }
    }
}

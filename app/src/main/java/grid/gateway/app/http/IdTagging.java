package grid.gateway.app.http;

import grid.gateway.app.forward.AnswerMemory;
import grid.gateway.app.forward.AnswerRewrite;
import grid.gateway.app.forward.EventWriter;
import grid.gateway.app.rewrite.EventSink;
import grid.gateway.app.rewrite.JsonIdStream;
import grid.gateway.app.rewrite.ResponseIdTagger;
import grid.gateway.app.rewrite.SseIdTagger;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * Tags the stored ids of {@code /v1/responses…} and {@code /v1/conversations…} answers with the cluster that
 * served them (docs/design.md §5, §H20): short JSON bodies whole, longer ones and server-sent events as they stream;
 * what the taggers hand on is flushed once per upstream read.
 *
 * <p>Thread-safe; each answer gets its own event writer.
 */
final class IdTagging implements AnswerRewrite {
    private final UnaryOperator<String> tag;
    private final ResponseIdTagger tagger;

    /** Tags with {@code tag}, which maps an engine id to its tagged form. */
    IdTagging(UnaryOperator<String> tag) {
        this.tag = tag;
        this.tagger = new ResponseIdTagger(tag);
    }

    @Override
    public boolean tagsIds() {
        return true;
    }

    @Override
    public byte[] tagJson(byte[] body) {
        byte[] tagged = tagger.tagJson(body);
        if (tagged != body) {
            return tagged;
        }
        // Nothing tagged: no id, or not one valid JSON text (cut short, a stray byte after it, a bad UTF-8 byte). Such
        // a body is tagged as the streaming tagger tags a longer one, up to its flaw, so that whether an id goes out
        // tagged never depends on the answer's length, and a lenient client parser never reads an untagged id the
        // flaw came after.
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + 64);
        JsonIdStream json = new JsonIdStream(tag);
        EventSink sink = out::write;
        json.accept(body, 0, body.length, sink);
        json.finish(sink);
        byte[] streamed = out.toByteArray();
        return Arrays.equals(streamed, body) ? body : streamed;
    }

    @Override
    public EventWriter events(OutputStream out, AnswerMemory memory) {
        // A tagged event is a copy, written whole: to a client that takes nothing it is held until the send timeout.
        SseIdTagger events = new SseIdTagger(tagger, SseIdTagger.DEFAULT_MAX_EVENT_BYTES, memory::hold);
        return writer(out, events::accept, events::finish, events::holds, events::streamHeld);
    }

    @Override
    public EventWriter json(OutputStream out) {
        JsonIdStream json = new JsonIdStream(tag);
        return writer(out, json::accept, json::finish, () -> json.held() > 0, json::handOnHeld);
    }

    /**
     * What a tagger hands on is written to {@code out}, which is flushed once per upstream read, at the end, and when
     * what the tagger holds ({@code holds}) is handed on before its time ({@code handOn}).
     */
    private static EventWriter writer(
            OutputStream out,
            Feed feed,
            Consumer<EventSink> finish,
            BooleanSupplier holds,
            Consumer<EventSink> handOn) {
        EventSink sink = sink(out);
        return new EventWriter() {
            @Override
            public void accept(byte[] bytes, int offset, int length) throws IOException {
                feed.accept(bytes, offset, length, sink);
                out.flush();
            }

            @Override
            public void finish() throws IOException {
                finish.accept(sink);
                out.flush();
            }

            @Override
            public boolean holds() {
                return holds.getAsBoolean();
            }

            @Override
            public void handOnHeld() throws IOException {
                handOn.accept(sink);
                out.flush();
            }
        };
    }

    /** What a tagger hands on, written to {@code out}. */
    private static EventSink sink(OutputStream out) {
        return (bytes, off, len) -> {
            try {
                out.write(bytes, off, len);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
    }

    /** A tagger's {@code accept}. */
    @FunctionalInterface
    private interface Feed {
        void accept(byte[] bytes, int offset, int length, EventSink sink);
    }
}

package grid.gateway.app.http;

import grid.gateway.app.forward.AnswerRewrite;
import grid.gateway.app.forward.EventWriter;
import grid.gateway.app.rewrite.ResponseIdTagger;
import grid.gateway.app.rewrite.SseIdTagger;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.function.UnaryOperator;

/**
 * Tags the stored ids of {@code /v1/responses…} and {@code /v1/conversations…} answers with the cluster that
 * served them (docs/design.md §5): whole JSON bodies, and each server-sent event, written and flushed one event at a time.
 *
 * <p>Thread-safe; each answer gets its own event writer.
 */
final class IdTagging implements AnswerRewrite {
    private final ResponseIdTagger tagger;

    /** Tags with {@code tag}, which maps an engine id to its tagged form. */
    IdTagging(UnaryOperator<String> tag) {
        this.tagger = new ResponseIdTagger(tag);
    }

    @Override
    public boolean tagsIds() {
        return true;
    }

    @Override
    public byte[] tagJson(byte[] body) {
        return tagger.tagJson(body);
    }

    @Override
    public EventWriter events(OutputStream out) {
        SseIdTagger events = new SseIdTagger(tagger, SseIdTagger.DEFAULT_MAX_EVENT_BYTES);
        grid.gateway.app.rewrite.EventSink sink = (bytes, off, len) -> {
            try {
                out.write(bytes, off, len);
                out.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
        return new EventWriter() {
            @Override
            public void accept(byte[] bytes, int offset, int length) {
                events.accept(bytes, offset, length, sink);
            }

            @Override
            public void finish() {
                events.finish(sink);
            }
        };
    }
}

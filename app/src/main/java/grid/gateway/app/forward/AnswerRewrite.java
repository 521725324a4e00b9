package grid.gateway.app.forward;

import java.io.OutputStream;

/**
 * What the relay does to an answer body on its way out: for {@code /v1/responses…} and
 * {@code /v1/conversations…}, tag the stored ids (docs/design.md §5, §H20); for everything else, nothing.
 *
 * <p>Implementations are thread-safe; the writers they create belong to one answer.
 */
public interface AnswerRewrite {
    /** Leaves every body as it is: chunks are written and flushed as read. */
    AnswerRewrite NONE = new AnswerRewrite() {
        @Override
        public boolean tagsIds() {
            return false;
        }

        @Override
        public byte[] tagJson(byte[] body) {
            return body;
        }

        @Override
        public EventWriter events(OutputStream out, AnswerMemory memory) {
            return json(out);
        }

        @Override
        public EventWriter json(OutputStream out) {
            return new EventWriter() {
                @Override
                public void accept(byte[] bytes, int offset, int length) throws java.io.IOException {
                    out.write(bytes, offset, length);
                    out.flush();
                }

                @Override
                public void finish() {}
            };
        }
    };

    /** Whether ids are tagged in JSON and SSE answers. */
    boolean tagsIds();

    /** A whole JSON body with its ids tagged. */
    byte[] tagJson(byte[] body);

    /**
     * A writer of a server-sent event stream's chunks to {@code out}, tagging each event, flushing after each; the
     * tagged copy of an event is counted in {@code memory} while it is written.
     */
    EventWriter events(OutputStream out, AnswerMemory memory);

    /** A writer of a JSON answer's chunks to {@code out}, tagging as they stream (one JSON text), flushing each. */
    EventWriter json(OutputStream out);
}

package grid.gateway.app.rewrite;

/**
 * Receives what {@link SseIdTagger} hands on: one call per complete server-sent event, so the caller can write and
 * flush per event, or a piece of an event too large to buffer.
 *
 * <p>Called on the thread that feeds the tagger.
 */
@FunctionalInterface
public interface EventSink {
    /**
     * Takes {@code bytes[off, off + len)}, never empty. The array belongs to the tagger and may be reused after the
     * call returns, so an implementation copies what it keeps.
     */
    void event(byte[] bytes, int off, int len);
}

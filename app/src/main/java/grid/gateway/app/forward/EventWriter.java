package grid.gateway.app.forward;

import java.io.IOException;

/**
 * Receives an answer body as it is read and writes it to the client, flushing at each boundary it knows: each
 * chunk for plain bodies, each server-sent event for tagged streams.
 *
 * <p>Not thread-safe; one per answer.
 */
public interface EventWriter {
    /** Bytes just read from the upstream. */
    void accept(byte[] bytes, int offset, int length) throws IOException;

    /** The upstream body ended: write whatever is held. */
    void finish() throws IOException;

    /**
     * Whether bytes already accepted are held back from the client now (an event buffered to be tagged whole, an id
     * value held until its closing quote).
     */
    default boolean holds() {
        return false;
    }

    /** Writes what is held now, and handles the rest of what it held as it streams (the relay's hold ran too long). */
    default void handOnHeld() throws IOException {}
}

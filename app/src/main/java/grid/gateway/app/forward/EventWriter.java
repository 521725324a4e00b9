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
}

package grid.gateway.app.http;

import java.io.IOException;
import java.io.InputStream;
import org.jspecify.annotations.Nullable;

/** The one line reader of the raw test clients (ClientAnswers, RawClient, StreamFates): heads and chunk framing. */
final class WireLines {
    private WireLines() {}

    /**
     * The next line of {@code in}, read a byte at a time (so nothing after it is consumed), without its line end or
     * surrounding white space (a bare LF ends a line too); null when the stream ends first.
     */
    static @Nullable String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\n') {
                return line.toString().strip();
            }
            line.append((char) c);
        }
        return null;
    }
}

package grid.gateway.app.config;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Reads the tag key file for a load. Production reads the file ({@link ConfigFiles#readKey}); the watcher also
 * remembers a digest of what it read, so that it can tell when the key file changes.
 *
 * <p>Implementations say whether they are thread-safe.
 */
@FunctionalInterface
interface KeyFileReader {
    /** The bytes of the key file at {@code path}. */
    byte[] read(Path path) throws IOException;
}

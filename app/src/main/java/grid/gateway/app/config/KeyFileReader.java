package grid.gateway.app.config;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Reads the files a config names besides itself for a load: the tag key file and the TLS PEM files. Production reads
 * the files ({@link ConfigFiles}); the watcher also remembers a digest of what it read, so that it can tell when one
 * changes.
 *
 * <p>Implementations say whether they are thread-safe.
 */
@FunctionalInterface
interface KeyFileReader {
    /** The bytes of the key file at {@code path}. */
    byte[] read(Path path) throws IOException;

    /** The bytes of the PEM file at {@code path} (a certificate, a key or a CA bundle). */
    default byte[] readPem(Path path) throws IOException {
        return ConfigFiles.readPem(path);
    }
}

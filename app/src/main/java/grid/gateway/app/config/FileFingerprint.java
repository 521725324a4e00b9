package grid.gateway.app.config;

import java.io.IOException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;

/**
 * What the watcher saw of the config file and the tag key file, by content: a SHA-256 digest of each file's bytes,
 * or why it could not be read, or {@code none} when the config names no key file. Content, not modification time,
 * because a Kubernetes ConfigMap or Secret update swaps a symbolic link and may keep the time.
 *
 * <p>Thread-safe (immutable). Holds digests only, never key bytes.
 *
 * @param config the config file's state
 * @param key the tag key file's state
 */
record FileFingerprint(String config, String key) {
    /** The state of a key file that is not configured (or was never reached). */
    static final String NONE = "none";

    /** The state of a file whose bytes are {@code content}. */
    static String of(byte[] content) {
        try {
            return "sha256:"
                    + HexFormat.of()
                            .formatHex(MessageDigest.getInstance("SHA-256").digest(content));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    /** The state of a file that could not be read. */
    static String unreadable(IOException e) {
        return "unreadable: " + ConfigFiles.describe(e);
    }

    /** The state of the key file at {@code path}, read now. */
    static String ofKey(Path path) {
        try {
            return of(ConfigFiles.readKey(path));
        } catch (IOException e) {
            return unreadable(e);
        }
    }

    /**
     * Reads key files for one load and remembers which file it read and its state.
     *
     * <p>Not thread-safe; one per load.
     */
    static final class KeyRecorder implements KeyFileReader {
        private Optional<Path> path = Optional.empty();
        private String state = NONE;

        @Override
        public byte[] read(Path file) throws IOException {
            path = Optional.of(file);
            try {
                byte[] bytes = ConfigFiles.readKey(file);
                state = of(bytes);
                return bytes;
            } catch (IOException e) {
                state = unreadable(e);
                throw e;
            }
        }

        /** The key file read, if the load reached it. */
        Optional<Path> path() {
            return path;
        }

        /** The state of the key file read, or {@link #NONE}. */
        String state() {
            return state;
        }
    }
}

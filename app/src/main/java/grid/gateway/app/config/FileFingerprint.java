package grid.gateway.app.config;

import java.io.IOException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * What the watcher saw of the config file and the files it names (the tag key file, the TLS PEM files), by content:
 * a SHA-256 digest of each file's bytes, or why it could not be read, or {@code none} when the config names none. Content, not modification time,
 * because a Kubernetes ConfigMap or Secret update swaps a symbolic link and may keep the time.
 *
 * <p>Thread-safe (immutable). Holds digests only, never key bytes.
 *
 * @param config the config file's state
 * @param key the states of the tag key file and the TLS PEM files, in the order the load read them
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

    /** The state of the side files {@code files}, each read now as it was for the load. */
    static String ofSideFiles(List<SideFile> files) {
        if (files.isEmpty()) {
            return NONE;
        }
        List<String> states = new ArrayList<>(files.size());
        for (SideFile file : files) {
            try {
                states.add(of(file.pem() ? ConfigFiles.readPem(file.path()) : ConfigFiles.readKey(file.path())));
            } catch (IOException e) {
                states.add(unreadable(e));
            }
        }
        return String.join(" ", states);
    }

    /**
     * A file a load read besides the config: the tag key file, or a TLS PEM file.
     *
     * @param path the file as named (a symbolic link is followed at every read)
     * @param pem whether it is read as a PEM file (its size bound), else as the tag key file
     */
    record SideFile(Path path, boolean pem) {}

    /**
     * Reads the side files for one load and remembers which it read and their states, in order.
     *
     * <p>Not thread-safe; one per load.
     */
    static final class KeyRecorder implements KeyFileReader {
        private final List<SideFile> files = new ArrayList<>();
        private final List<String> states = new ArrayList<>();

        @Override
        public byte[] read(Path file) throws IOException {
            return record(new SideFile(file, false));
        }

        @Override
        public byte[] readPem(Path file) throws IOException {
            return record(new SideFile(file, true));
        }

        private byte[] record(SideFile file) throws IOException {
            files.add(file);
            try {
                byte[] bytes = file.pem() ? ConfigFiles.readPem(file.path()) : ConfigFiles.readKey(file.path());
                states.add(of(bytes));
                return bytes;
            } catch (IOException e) {
                states.add(unreadable(e));
                throw e;
            }
        }

        /** The side files the load reached, in the order read. */
        List<SideFile> files() {
            return List.copyOf(files);
        }

        /** The states of the side files read, or {@link #NONE}. */
        String state() {
            return files.isEmpty() ? NONE : String.join(" ", states);
        }
    }
}

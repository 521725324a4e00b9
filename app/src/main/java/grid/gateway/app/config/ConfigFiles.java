package grid.gateway.app.config;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Reads the config file, the tag key file, the token file and the TLS PEM files whole, following symbolic links (a
 * Kubernetes ConfigMap or Secret mount is one), refusing a file larger than a bound so that a wrong path cannot exhaust
 * memory, and anything but a regular file before it is opened ({@link RegularFiles}): a named pipe would block the
 * start or every reload.
 *
 * <p>Stateless and thread-safe.
 */
final class ConfigFiles {
    /** Largest config file read, in bytes. */
    static final int CONFIG_LIMIT = 1 << 20;
    /** Largest tag key file read, in bytes. */
    static final int KEY_LIMIT = 64 << 10;
    /** Largest PEM file read, in bytes: room for a CA bundle as large as a system's whole trust store. */
    static final int PEM_LIMIT = 1 << 20;

    private ConfigFiles() {}

    /** The config file's bytes. */
    static byte[] readConfig(Path file) throws IOException {
        return read(file, CONFIG_LIMIT);
    }

    /** The tag key file's bytes. */
    static byte[] readKey(Path file) throws IOException {
        return read(file, KEY_LIMIT);
    }

    /** A TLS PEM file's bytes. */
    static byte[] readPem(Path file) throws IOException {
        return read(file, PEM_LIMIT);
    }

    /** The bytes of {@code file}, at most {@code limit} of them; refused when it is not a regular file. */
    static byte[] read(Path file, int limit) throws IOException {
        return RegularFiles.read(file, limit);
    }

    /** {@code bytes} as UTF-8 text, refusing malformed input rather than replacing it. */
    static CharBuffer utf8(byte[] bytes) throws CharacterCodingException {
        return StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(bytes));
    }

    /** Why a file could not be read, in a few words that name neither its content nor a stack. */
    static String describe(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof FileSystemException fs && fs.getReason() != null) {
            return fs.getReason();
        }
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }
}

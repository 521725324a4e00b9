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

    private static final byte[] UTF8_BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};

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

    /**
     * {@code bytes} as UTF-8 text, refusing malformed input rather than replacing it. A byte order mark at the start
     * (EF BB BF, which editors that save UTF-8 "with signature" write) says how the text is encoded and is no part of
     * it: left in, it would become part of the file's first tag key or token, and change it.
     */
    static CharBuffer utf8(byte[] bytes) throws CharacterCodingException {
        int start = hasByteOrderMark(bytes) ? UTF8_BOM.length : 0;
        return StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(bytes, start, bytes.length - start));
    }

    private static boolean hasByteOrderMark(byte[] bytes) {
        return bytes.length >= UTF8_BOM.length
                && bytes[0] == UTF8_BOM[0]
                && bytes[1] == UTF8_BOM[1]
                && bytes[2] == UTF8_BOM[2];
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

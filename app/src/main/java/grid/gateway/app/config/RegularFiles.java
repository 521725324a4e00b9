package grid.gateway.app.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;

/**
 * Reads the files the gateway is configured with (the config, tag keys, PEM files, tokens, the Redis password) only
 * when they are regular files, after following symbolic links (Kubernetes mounts a ConfigMap or Secret through two),
 * and at most a bound of their bytes. Anything else is refused before it is opened: opening a named pipe blocks until
 * a writer comes, reading a device such as {@code /dev/zero} never ends, and a directory cannot be read.
 *
 * <p>Stateless and thread-safe.
 */
public final class RegularFiles {
    private RegularFiles() {}

    /**
     * The bytes of {@code file}, at most {@code limit} of them.
     *
     * @throws IOException when it cannot be read, is larger than {@code limit} bytes, or is not a regular file (a
     *     {@link FileSystemException} whose reason says what it is)
     */
    public static byte[] read(Path file, int limit) throws IOException {
        Optional<String> what = notRegular(file);
        if (what.isPresent()) {
            throw new FileSystemException(file.toString(), null, "not a regular file: " + what.get());
        }
        try (InputStream in = Files.newInputStream(file)) {
            byte[] bytes = in.readNBytes(limit + 1);
            if (bytes.length > limit) {
                throw new IOException("larger than " + limit + " bytes");
            }
            return bytes;
        }
    }

    /**
     * What {@code file} is when it exists and is not a regular file ({@code a named pipe}, {@code a directory}, …),
     * after following symbolic links; empty for a regular file and for one that does not exist (its read says so).
     * Looks at the file's attributes only, never opens it.
     */
    public static Optional<String> notRegular(Path file) {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(file, BasicFileAttributes.class);
        } catch (IOException e) {
            return Optional.empty(); // the read reports it: no such file, permission denied, a loop of links
        }
        if (attributes.isRegularFile()) {
            return Optional.empty();
        }
        if (attributes.isDirectory()) {
            return Optional.of("a directory");
        }
        return Optional.of(kind(file));
    }

    /** A file that is neither regular nor a directory, by its type bits where the platform gives them. */
    private static String kind(Path file) {
        try {
            int type = (Integer) Files.getAttribute(file, "unix:mode") & 0170000;
            return switch (type) {
                case 0010000 -> "a named pipe";
                case 0020000 -> "a character device";
                case 0060000 -> "a block device";
                case 0140000 -> "a socket";
                default -> "a special file";
            };
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | ClassCastException e) {
            return "a special file";
        }
    }
}

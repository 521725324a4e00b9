package grid.gateway.app.config;

import grid.gateway.routing.tag.TagKeyRing;
import java.io.IOException;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;

/**
 * Reads {@code gateway.tag_key_path} into a {@link TagKeyRing} (docs/design.md §5): one key a non-empty line, the first signs,
 * each at least {@value TagKeyRing#MIN_KEY_BYTES} bytes. Problems name the file and the line, never a key's bytes.
 *
 * <p>Stateless and thread-safe.
 */
final class TagKeyFile {
    private static final String KEY = "gateway.tag_key_path";

    private TagKeyFile() {}

    /** The keys in the file at {@code path}, or empty after recording the problem. */
    static Optional<TagKeyRing> read(Path path, KeyFileReader reader, Problems problems) {
        String at = KEY + ": " + Problems.show(path.toString()) + ": ";
        byte[] bytes;
        try {
            bytes = reader.read(path);
        } catch (IOException e) {
            problems.addLine(at + "cannot read the tag key file (" + ConfigFiles.describe(e) + ")");
            return Optional.empty();
        }
        CharBuffer text;
        try {
            text = ConfigFiles.utf8(bytes);
        } catch (CharacterCodingException e) {
            problems.addLine(at + "the tag key file is not UTF-8 text (expected: one key a line)");
            return Optional.empty();
        } finally {
            Arrays.fill(bytes, (byte) 0);
        }
        try {
            return Optional.of(TagKeyRing.parse(text.toString()));
        } catch (IllegalArgumentException e) {
            // TagKeyRing's messages name a line number, never key bytes.
            problems.addLine(at + e.getMessage());
            return Optional.empty();
        } finally {
            Arrays.fill(text.array(), '\0');
        }
    }
}

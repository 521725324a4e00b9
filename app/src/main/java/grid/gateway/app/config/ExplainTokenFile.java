package grid.gateway.app.config;

import java.io.IOException;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;

/**
 * Reads {@code server.route_explain.token_file} into {@link ExplainTokens}: one token a non-empty line, any of them
 * accepted. Problems name the file and the line, never a token.
 *
 * <p>Stateless and thread-safe.
 */
final class ExplainTokenFile {
    private static final String KEY = "server.route_explain.token_file";

    private ExplainTokenFile() {}

    /** The tokens in the file at {@code path}, or empty after recording the problem. */
    static Optional<ExplainTokens> read(Path path, KeyFileReader reader, Problems problems) {
        String at = KEY + ": " + Problems.show(path.toString()) + ": ";
        byte[] bytes;
        try {
            bytes = reader.read(path);
        } catch (IOException e) {
            problems.addLine(at + "cannot read the token file (" + ConfigFiles.describe(e) + ")");
            return Optional.empty();
        }
        CharBuffer text;
        try {
            text = ConfigFiles.utf8(bytes);
        } catch (CharacterCodingException e) {
            problems.addLine(at + "the token file is not UTF-8 text (expected: one token a line)");
            return Optional.empty();
        } finally {
            Arrays.fill(bytes, (byte) 0);
        }
        try {
            return Optional.of(ExplainTokens.parse(text.toString()));
        } catch (IllegalArgumentException e) {
            // The messages name a line number, never a token.
            problems.addLine(at + e.getMessage());
            return Optional.empty();
        } finally {
            Arrays.fill(text.array(), '\0');
        }
    }
}

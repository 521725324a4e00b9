package grid.gateway.app.config;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Reads {@code plugins.grid_site_route.prefix_affinity.sharing} into {@link SharingSettings}.
 *
 * <p>A password written in {@code redis_url} is refused: the effective config ({@code --check-config}) prints the
 * URL, and a Secret belongs in a file ({@code password_file}).
 *
 * <p>Stateless and thread-safe.
 */
final class SharingBlock {
    private static final String URL_EXPECTED =
            "a redis:// or rediss:// URL with a host, an optional port and database number, and no password"
                    + " (use password_file)";
    private static final Pattern STREAM = Pattern.compile("[A-Za-z0-9_.:{}-]{1,200}");

    private SharingBlock() {}

    /** The settings in {@code affinity.sharing}, defaults filled in. */
    static SharingSettings read(YamlBlock affinity, Path configDirectory) {
        YamlBlock block = affinity.block("sharing");
        block.only("redis_url", "stream", "password_file", "warm_start_ms", "share_backlog", "confirm_wait_ms");
        Optional<URI> url = block.string("redis_url", URL_EXPECTED).flatMap(text -> url(block, text));
        String streamExpected = "a Redis key of letters, digits and _.:{}-";
        String stream = block.string("stream", streamExpected).orElse(SharingSettings.DEFAULT_STREAM);
        if (!STREAM.matcher(stream).matches()) {
            block.problems().add(block.path("stream"), stream, streamExpected);
        }
        Optional<Path> password = block.string("password_file", "the path of the Redis password file")
                .flatMap(text -> path(block, configDirectory, text));
        long warm = block.integer(
                "warm_start_ms",
                SharingSettings.DEFAULT_WARM_START.toMillis(),
                new LongRange(0, 600_000, "0..600000", "0..600000"));
        boolean backlog = block.bool("share_backlog", false);
        long confirmWait = block.integer("confirm_wait_ms", 0, new LongRange(0, 60_000, "0..60000", "0..60000"));
        return new SharingSettings(
                url, stream, password, Duration.ofMillis(warm), backlog, Duration.ofMillis(confirmWait));
    }

    private static Optional<URI> url(YamlBlock block, String text) {
        try {
            URI uri = new URI(text);
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            String path = uri.getPath() == null ? "" : uri.getPath();
            boolean ok = (scheme.equals("redis") || scheme.equals("rediss"))
                    && uri.getHost() != null
                    && WrittenPort.valid(uri)
                    && (uri.getUserInfo() == null || !uri.getUserInfo().contains(":"))
                    && uri.getQuery() == null
                    && uri.getFragment() == null
                    && path.matches("(/\\d{1,5})?/?");
            if (ok) {
                return Optional.of(uri);
            }
        } catch (URISyntaxException e) {
            // Reported below.
        }
        // The text may hold a password: the problem names the key, not the value.
        block.problems().addLine(block.path("redis_url") + ": expected " + URL_EXPECTED);
        return Optional.empty();
    }

    private static Optional<Path> path(YamlBlock block, Path configDirectory, String text) {
        try {
            if (!text.isBlank()) {
                Path file = configDirectory.resolve(text).normalize();
                // Read at start only, by the sharing threads; what would block that read (a named pipe) or never
                // end it (a device) is a config error now, named by its key, without the file being opened.
                Optional<String> what = RegularFiles.notRegular(file);
                if (what.isPresent()) {
                    block.problems()
                            .addLine(block.path("password_file") + ": " + Problems.show(file.toString())
                                    + ": not a regular file: " + what.get());
                    return Optional.empty();
                }
                return readable(block, file) ? Optional.of(file) : Optional.empty();
            }
        } catch (InvalidPathException e) {
            // Reported below.
        }
        block.problems().add(block.path("password_file"), text, "the path of the Redis password file");
        return Optional.empty();
    }

    /**
     * Whether the password file can be read now: a missing, unreadable or oversized file is a config error naming the
     * key and the path (exit 2 at start, a refused reload), not a failure of the sharing threads starting. The bytes
     * read are cleared at once; the sharing threads read the file again when they connect.
     */
    private static boolean readable(YamlBlock block, Path file) {
        try {
            Arrays.fill(RegularFiles.read(file, SharingSettings.PASSWORD_LIMIT), (byte) 0);
            return true;
        } catch (IOException e) {
            block.problems()
                    .addLine(block.path("password_file") + ": " + Problems.show(file.toString())
                            + ": cannot read the Redis password file (" + ConfigFiles.describe(e) + ")");
            return false;
        }
    }
}

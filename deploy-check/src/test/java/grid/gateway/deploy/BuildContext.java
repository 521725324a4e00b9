package grid.gateway.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * A Docker build context: the repository with the paths its {@code .dockerignore} excludes left out, as
 * {@code docker build .} would send it. Supports the patterns this repository uses ({@code *}, {@code **}, a
 * trailing {@code /}); an exception pattern ({@code !...}) is refused rather than silently misread.
 *
 * <p>Immutable.
 */
final class BuildContext {
    private final Path root;
    private final List<PathMatcher> excluded;

    private BuildContext(Path root, List<PathMatcher> excluded) {
        this.root = root;
        this.excluded = List.copyOf(excluded);
    }

    /** The context rooted at {@code root}, honouring {@code root/.dockerignore} when there is one. */
    static BuildContext of(Path root) {
        List<PathMatcher> excluded = new ArrayList<>();
        Path ignore = root.resolve(".dockerignore");
        try {
            List<String> lines = Files.isRegularFile(ignore) ? Files.readAllLines(ignore) : List.of();
            for (String line : lines) {
                String pattern = line.strip();
                if (pattern.isEmpty() || pattern.startsWith("#")) {
                    continue;
                }
                if (pattern.startsWith("!")) {
                    throw new IllegalArgumentException(".dockerignore exception patterns are not replayed: " + line);
                }
                pattern = pattern.endsWith("/") ? pattern.substring(0, pattern.length() - 1) : pattern;
                excluded.add(FileSystems.getDefault().getPathMatcher("glob:" + pattern));
                if (pattern.startsWith("**/")) {
                    // Docker's ** also matches no directory at all: **/target excludes ./target.
                    excluded.add(FileSystems.getDefault().getPathMatcher("glob:" + pattern.substring(3)));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new BuildContext(root, excluded);
    }

    /** Whether {@code relative} (or a directory above it) is left out of the context. */
    boolean excludes(Path relative) {
        for (Path prefix = relative; prefix != null; prefix = prefix.getParent()) {
            for (PathMatcher matcher : excluded) {
                if (matcher.matches(prefix)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Copies the context path {@code source} as {@code COPY source target} would: a directory's contents into
     * {@code target}, a file into {@code target} (a directory when {@code intoDirectory}).
     */
    void copy(String source, Path target, boolean intoDirectory) {
        Path relative = Path.of(source.endsWith("/") ? source.substring(0, source.length() - 1) : source);
        if (source.contains("*") || source.contains("?") || relative.isAbsolute() || source.contains("..")) {
            throw new IllegalArgumentException("COPY source not replayed: " + source);
        }
        if (excludes(relative)) {
            throw new IllegalArgumentException("COPY " + source + ": excluded by .dockerignore");
        }
        Path from = root.resolve(relative);
        try {
            if (Files.isDirectory(from)) {
                copyTree(from, relative, target);
            } else if (Files.isRegularFile(from)) {
                Path to = intoDirectory ? target.resolve(from.getFileName().toString()) : target;
                Files.createDirectories(to.getParent());
                Files.copy(from, to);
            } else {
                throw new IllegalArgumentException("COPY " + source + ": not in the build context");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void copyTree(Path from, Path relative, Path target) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path file : files.toList()) {
                Path inside = from.relativize(file);
                if (excludes(relative.resolve(inside))) {
                    continue;
                }
                Path to = target.resolve(inside.toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(to);
                } else {
                    Files.createDirectories(to.getParent());
                    Files.copy(file, to);
                }
            }
        }
    }
}

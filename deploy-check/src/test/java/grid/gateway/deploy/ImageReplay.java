package grid.gateway.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Replays a Dockerfile without a container engine, driven by its own text: each stage gets a root directory under
 * {@code scratch}; {@code WORKDIR}, {@code ENV}, {@code COPY} (from the build context or {@code --from} an earlier
 * stage) are applied to it, and every {@code RUN} of a build stage runs on this machine with {@code sh -c}, in the
 * stage's working directory. The base image is this machine (its Maven and JDK stand for the build image's). The
 * last stage is the runtime: its {@code RUN} lines (user creation) need root and the base image, so they are
 * listed, not run; its {@code ENTRYPOINT} can then be run with absolute paths mapped into its root directory.
 *
 * <p>An instruction the replay does not understand fails it, so the Dockerfile cannot grow a step that CI skips.
 * Not thread-safe.
 */
final class ImageReplay {
    private static final Pattern ENV_PAIR = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)=(\"[^\"]*\"|\\S*)");
    private static final Pattern EXEC_FORM = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final long RUN_TIMEOUT_MINUTES = 10;

    private final DockerfileText dockerfile;
    private final BuildContext context;
    private final Path scratch;
    private final List<String> log = new ArrayList<>();
    private final Map<String, Path> stageRoots = new LinkedHashMap<>();
    private final Map<String, String> runtimeEnv = new LinkedHashMap<>();
    private Path runtimeRoot = Path.of("/");
    private List<String> entrypoint = List.of();

    ImageReplay(DockerfileText dockerfile, BuildContext context, Path scratch) {
        this.dockerfile = dockerfile;
        this.context = context;
        this.scratch = scratch;
    }

    /** Replays every stage in order; fails on the first instruction that fails. */
    void build() {
        List<List<DockerfileText.Instruction>> stages = dockerfile.stages();
        for (int i = 0; i < stages.size(); i++) {
            replayStage(i, stages.get(i), i == stages.size() - 1);
        }
    }

    private void replayStage(int index, List<DockerfileText.Instruction> stage, boolean runtime) {
        Path root = scratch.resolve("stage-" + index);
        Path workdir = root;
        Map<String, String> env = new LinkedHashMap<>();
        for (DockerfileText.Instruction instruction : stage) {
            String args = instruction.arguments();
            switch (instruction.keyword()) {
                case "FROM" -> {
                    String[] words = args.split("\\s+");
                    String name = words.length == 3 && words[1].equalsIgnoreCase("AS") ? words[2] : "" + index;
                    stageRoots.put(name, root);
                    stageRoots.put("" + index, root);
                    note("FROM " + args + "  (stage root " + scratch.relativize(root) + "; base image: this machine)");
                }
                case "WORKDIR" -> {
                    workdir = inside(root, args);
                    mkdirs(workdir);
                    note("WORKDIR " + args);
                }
                case "ENV" -> {
                    Matcher pair = ENV_PAIR.matcher(args);
                    while (pair.find()) {
                        env.put(pair.group(1), unquote(pair.group(2)));
                    }
                    note("ENV " + args);
                }
                case "COPY" -> copy(args, root, workdir);
                case "RUN" -> {
                    if (runtime) {
                        note("RUN (runtime stage, not replayed: needs root and the base image) " + args);
                    } else {
                        run(args, workdir, env);
                    }
                }
                case "ENTRYPOINT" -> {
                    entrypoint = execForm(args);
                    note("ENTRYPOINT " + args);
                }
                case "EXPOSE", "USER", "LABEL" -> note(instruction.keyword() + " " + args + "  (metadata)");
                default ->
                    throw new IllegalStateException(
                            "the replay does not know " + instruction.keyword() + " " + args + "; teach it");
            }
        }
        if (runtime) {
            runtimeRoot = root;
            runtimeEnv.putAll(env);
        }
    }

    private void copy(String args, Path root, Path workdir) {
        List<String> words = new ArrayList<>(List.of(args.split("\\s+")));
        String from = null;
        while (words.get(0).startsWith("--")) {
            String flag = words.remove(0);
            if (flag.startsWith("--from=")) {
                from = flag.substring("--from=".length());
            } else {
                throw new IllegalStateException("COPY flag not replayed: " + flag);
            }
        }
        if (words.size() != 2) {
            throw new IllegalStateException("COPY with other than one source and one target: " + args);
        }
        String source = words.get(0);
        String target = words.get(1);
        Path to = target.startsWith("/") ? inside(root, target) : workdir.resolve(target);
        boolean intoDirectory = target.endsWith("/") || target.equals(".");
        if (from == null) {
            context.copy(source, to, intoDirectory);
        } else {
            Path stage = stageRoots.get(from);
            if (stage == null) {
                throw new IllegalStateException("COPY --from=" + from + ": no such earlier stage");
            }
            BuildContext.of(stage)
                    .copy(
                            stage.relativize(inside(stage, source)) + (source.endsWith("/") ? "/" : ""),
                            to,
                            intoDirectory);
        }
        note("COPY " + args);
    }

    private void run(String command, Path workdir, Map<String, String> env) {
        if (command.startsWith("[")) {
            throw new IllegalStateException("exec-form RUN not replayed: " + command);
        }
        note("RUN " + command);
        Path output = scratch.resolve("run-" + log.size() + ".log");
        ProcessBuilder builder = new ProcessBuilder("sh", "-c", command)
                .directory(workdir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(output.toFile());
        builder.environment().putAll(env);
        long start = System.nanoTime();
        int exit = await(builder, "RUN " + command);
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        note("    exit " + exit + " after " + seconds + " s");
        if (exit != 0) {
            throw new AssertionError("RUN " + command + " exited " + exit + ":\n" + tail(output));
        }
    }

    /**
     * Runs the runtime stage's {@code ENTRYPOINT} with {@code args} appended, its environment set, and absolute
     * paths under the stage root mapped there; {@code java} is this JVM's.
     */
    Result runEntrypoint(List<String> args) {
        if (entrypoint.isEmpty()) {
            throw new IllegalStateException("the runtime stage has no exec-form ENTRYPOINT");
        }
        List<String> command = new ArrayList<>();
        for (String word : entrypoint) {
            if (word.equals("java")) {
                command.add(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString());
            } else if (word.startsWith("/")) {
                command.add(inside(runtimeRoot, word).toString());
            } else {
                command.add(word);
            }
        }
        command.addAll(args);
        Path output = scratch.resolve("entrypoint.log");
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
        builder.environment().putAll(runtimeEnv);
        int exit = await(builder, String.join(" ", command));
        try {
            return new Result(exit, Files.readString(output, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * What the entrypoint did.
     *
     * @param exitCode its exit code
     * @param output its standard output and error
     */
    record Result(int exitCode, String output) {}

    /** {@code absolute} (an image path) inside the stage root {@code root}. */
    static Path inside(Path root, String absolute) {
        String relative = absolute.replaceFirst("^/+", "");
        return relative.isEmpty() ? root : root.resolve(relative);
    }

    /** The runtime stage's root directory (the image's {@code /}). */
    Path runtimeRoot() {
        return runtimeRoot;
    }

    /** The runtime stage's environment ({@code ENV}). */
    Map<String, String> runtimeEnv() {
        return Map.copyOf(runtimeEnv);
    }

    /** One line per replayed instruction, with each RUN's exit code and duration. */
    List<String> log() {
        return List.copyOf(log);
    }

    private void note(String line) {
        log.add(line);
    }

    private static int await(ProcessBuilder builder, String what) {
        try {
            Process process = builder.start();
            if (!process.waitFor(RUN_TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new AssertionError(what + " did not end within " + RUN_TIMEOUT_MINUTES + " min");
            }
            return process.exitValue();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + what, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static List<String> execForm(String args) {
        if (!args.startsWith("[")) {
            throw new IllegalStateException("shell-form ENTRYPOINT not replayed: " + args);
        }
        List<String> words = new ArrayList<>();
        Matcher word = EXEC_FORM.matcher(args);
        while (word.find()) {
            words.add(word.group(1));
        }
        return List.copyOf(words);
    }

    private static String unquote(String value) {
        return value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")
                ? value.substring(1, value.length() - 1)
                : value;
    }

    private static void mkdirs(Path directory) {
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String tail(Path output) {
        try {
            List<String> lines = Files.readAllLines(output, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no output: " + e + ")";
        }
    }
}

package grid.gateway.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A Dockerfile read as instructions, enough to check its structure: comments dropped, continuation lines joined,
 * split into stages at each {@code FROM}.
 *
 * @param stages the stages, in order
 */
record DockerfileText(List<List<Instruction>> stages) {
    DockerfileText {
        stages = stages.stream().map(List::copyOf).toList();
    }

    /**
     * One instruction.
     *
     * @param keyword upper case, such as {@code COPY}
     * @param arguments the rest of the instruction, continuation lines joined with a space
     */
    record Instruction(String keyword, String arguments) {}

    /** Reads {@code file}. */
    static DockerfileText read(Path file) {
        try {
            return parse(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Parses Dockerfile text. */
    static DockerfileText parse(String text) {
        List<List<Instruction>> stages = new ArrayList<>();
        StringBuilder pending = new StringBuilder();
        for (String line : text.lines().toList()) {
            String trimmed = line.strip();
            if (trimmed.startsWith("#") || (trimmed.isEmpty() && pending.isEmpty())) {
                continue;
            }
            if (trimmed.endsWith("\\")) {
                pending.append(trimmed, 0, trimmed.length() - 1).append(' ');
                continue;
            }
            pending.append(trimmed);
            String whole = pending.toString().strip();
            pending.setLength(0);
            String[] parts = whole.split("\\s+", 2);
            Instruction instruction =
                    new Instruction(parts[0].toUpperCase(Locale.ROOT), parts.length > 1 ? parts[1] : "");
            if (instruction.keyword().equals("FROM")) {
                stages.add(new ArrayList<>());
            }
            if (stages.isEmpty()) {
                throw new IllegalArgumentException("instruction before FROM: " + whole);
            }
            stages.get(stages.size() - 1).add(instruction);
        }
        return new DockerfileText(stages);
    }

    /** The last stage: what the image runs. */
    List<Instruction> runtime() {
        return stages.get(stages.size() - 1);
    }

    /** The arguments of every instruction of {@code keyword} in {@code stage}. */
    static List<String> all(List<Instruction> stage, String keyword) {
        return stage.stream()
                .filter(i -> i.keyword().equals(keyword))
                .map(Instruction::arguments)
                .toList();
    }
}

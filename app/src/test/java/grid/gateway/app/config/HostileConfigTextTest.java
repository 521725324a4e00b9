package grid.gateway.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assertions.assertTimeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The example config's text made hostile as a whole: encodings and line ends, YAML documents, directives, tags,
 * anchors and aliases (a billion laughs), nesting, long and invisible text, and files of as many values as a mebibyte
 * holds. A harmless variant loads as the original; every other is refused with a {@link ConfigException}, quickly,
 * each problem one line of bounded length that shows no control or invisible character as it is (each is a log line:
 * a raw line break would forge another, and an invisible character hides what is wrong).
 */
class HostileConfigTextTest {
    /** Far more than any variant takes, however busy the machine: a billion laughs must not take seconds. */
    private static final Duration QUICK = Duration.ofSeconds(5);

    private static final Path EXAMPLE = etc().resolve("gateway-example.yaml");
    private static final String TEXT = read(EXAMPLE);
    private static final String LONG = "a".repeat(300_000);

    static Stream<Arguments> harmless() {
        return Stream.of(
                Arguments.of("byte order mark", bytes("\uFEFF" + TEXT)),
                Arguments.of("CRLF line ends", bytes(TEXT.replace("\n", "\r\n"))),
                Arguments.of("CR line ends", bytes(TEXT.replace("\n", "\r"))),
                Arguments.of("document start and end markers", bytes("---\n" + TEXT + "...\n")),
                Arguments.of("YAML 1.1 directive", bytes("%YAML 1.1\n---\n" + TEXT)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("harmless")
    void harmlessVariant_loadsAsTheOriginal(String name, byte[] content) {
        GatewaySnapshot original = ConfigLoader.load(EXAMPLE);

        GatewaySnapshot loaded = assertTimeout(QUICK, () -> load(content));

        assertThat(EffectiveConfig.yaml(loaded)).isEqualTo(EffectiveConfig.yaml(original));
    }

    static Stream<Arguments> hostile() {
        return Stream.of(
                Arguments.of("two documents", bytes(TEXT + "---\n" + TEXT), "but found another document"),
                Arguments.of("a Java object tag", bytes(TEXT + "x: !!java/object:java.lang.Runtime {}\n"), "tag"),
                Arguments.of("a global Java tag", bytes("!!javax.script.ScriptEngineManager []\n"), "Global tag"),
                Arguments.of("a binary site", bytes(site("!!binary ZWFzdA==")), "gateway.site: a value of type byte[]"),
                Arguments.of("a local tag", bytes(site("!custom east")), "could not determine a constructor"),
                Arguments.of("YAML 2.0", bytes("%YAML 2.0\n---\n" + TEXT), "incompatible YAML document"),
                Arguments.of("a billion laughs", bytes(laughs() + TEXT), "Number of aliases"),
                Arguments.of("a billion merges", bytes(merges() + TEXT), "Number of aliases"),
                Arguments.of(
                        "a list holding itself", bytes(TEXT.replace("sites:\n", "sites: &s [*s]\nx:\n")), "sites[0]"),
                Arguments.of("deep flow nesting", bytes("x: " + "[".repeat(100_000)), "Nesting Depth"),
                Arguments.of("deep block nesting", bytes(deepBlock()), "Nesting Depth"),
                Arguments.of("a long undefined alias", bytes(TEXT + "x: *" + LONG + "\n"), "undefined alias"),
                Arguments.of("a long tag", bytes(TEXT + "x: !" + LONG + " 1\n"), "for the tag"),
                Arguments.of("a long site name", bytes(site(LONG)), "gateway.site: "),
                Arguments.of("a site name over lines", bytes(site("\"east\\nsites[9].name: forged\"")), "gateway.site"),
                Arguments.of(
                        "an invisible character in a key",
                        bytes(TEXT.replace("port: 8080", "po\u200Brt: 8080")),
                        "server.\"po\\u200brt\": unknown key"),
                Arguments.of("a reversed site name", bytes(site("\"ea\u202Est\"")), "gateway.site: "),
                Arguments.of("a NUL byte", bytes(TEXT + "\0"), "special characters"),
                Arguments.of("not UTF-8", concat(bytes(TEXT), new byte[] {(byte) 0xC3, 0x28}), "not UTF-8"),
                Arguments.of("UTF-16", TEXT.getBytes(StandardCharsets.UTF_16), "not UTF-8"),
                Arguments.of("empty", new byte[0], "empty"),
                Arguments.of("comments only", bytes("# one\n# two\n"), "empty"),
                Arguments.of("white space only", bytes("   \n\n"), "empty"),
                Arguments.of(
                        "a mebibyte of list items",
                        bytes(TEXT.replace("sites:\n", "x: [" + "1,".repeat(520_000) + "1]\nsites:\n")),
                        "values"),
                Arguments.of("a mebibyte of keys", bytes(manyKeys()), "values"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("hostile")
    void hostileVariant_refusedQuicklyInBoundedLines(String name, byte[] content, String named) {
        ConfigException refused = assertTimeout(QUICK, () -> refusal(content));

        assertThat(refused.problems())
                .isNotEmpty()
                .anySatisfy(p -> assertThat(p).contains(named));
        assertThat(refused.problems()).allSatisfy(HostileConfigTextTest::assertOneShownLine);
    }

    @Test
    void problemLine_escapesWhatItCannotShow_andIsCut() {
        Problems problems = new Problems();
        problems.addLine("gateway.site: site name \"ea\nst\u202E\u0007\" " + "x".repeat(1_000));

        String line = catchThrowableOfType(ConfigException.class, problems::throwIfAny)
                .problems()
                .getFirst();

        assertThat(line)
                .startsWith("gateway.site: site name \"ea\\nst\\u202e\\u0007\" xxx")
                .endsWith("x…");
        assertThat(line).hasSize(Problems.MAX_LINE_CHARS);
    }

    private static void assertOneShownLine(String problem) {
        assertThat(problem.length()).as(problem).isLessThanOrEqualTo(Problems.MAX_LINE_CHARS);
        assertThat(problem.codePoints())
                .as(problem)
                .noneMatch(c -> Character.isISOControl(c) || Character.getType(c) == Character.FORMAT);
    }

    private static GatewaySnapshot load(byte[] content) {
        return ConfigLoader.load(content, EXAMPLE, ConfigFiles::readKey);
    }

    private static ConfigException refusal(byte[] content) {
        try {
            load(content);
        } catch (ConfigException e) {
            return e;
        }
        throw new AssertionError("loaded");
    }

    private static String site(String value) {
        return TEXT.replace("  site: east ", "  site: " + value + " ");
    }

    /** Ten levels of ten aliases each: 10^10 strings once expanded. */
    private static String laughs() {
        StringBuilder yaml = new StringBuilder("l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for (int i = 1; i < 10; i++) {
            yaml.append("l").append(i).append(": &l").append(i).append(" [");
            yaml.append(String.join(", ", java.util.Collections.nCopies(10, "*l" + (i - 1))));
            yaml.append("]\n");
        }
        return yaml.toString();
    }

    /** Thirty mappings each merging the one before twice: 2^30 merges. */
    private static String merges() {
        StringBuilder yaml = new StringBuilder("m0: &m0 {a: 1, b: 2}\n");
        for (int i = 1; i < 30; i++) {
            yaml.append("m").append(i).append(": &m").append(i);
            yaml.append(" {<<: [*m").append(i - 1).append(", *m").append(i - 1).append("]}\n");
        }
        return yaml.toString();
    }

    private static String deepBlock() {
        StringBuilder yaml = new StringBuilder();
        for (int i = 0; i < 200; i++) {
            yaml.append(" ".repeat(i)).append("k:\n");
        }
        return yaml.toString();
    }

    /** A mebibyte of distinct keys in the server block. */
    private static String manyKeys() {
        StringBuilder yaml = new StringBuilder("server: {");
        for (int i = 0; yaml.length() < 1_000_000; i++) {
            yaml.append("k").append(Integer.toString(i, 36)).append(": 0, ");
        }
        return yaml.append("z: 0}\n").toString() + TEXT.substring(TEXT.indexOf("gateway:"));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static Path etc() {
        return ExampleConfigsTest.etc();
    }
}

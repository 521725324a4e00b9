package grid.gateway.routing.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.regex.Pattern;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * The gateway's model of what an engine reads ({@link PythonBytes} then {@link JsonTokenizer.Grammar#PYTHON})
 * against CPython 3.11's {@code json.loads} on the bodies of {@code testdata/python-json/cases.tsv}: a body Python
 * reads is {@code VALID}; a body whose bytes Python cannot decode is refused by {@link PythonBytes#asUtf8} or by the
 * grammar's UTF-8 check; a body Python's decoder refuses is never {@code VALID}. The one failure Python has beyond
 * the grammar, an integer past its 4,300-digit limit, is left to the engine (its model is read, the engine refuses).
 */
class PythonGrammarCasesTest {
    private static final Pattern LONG_INTEGER = Pattern.compile("[0-9]{4301}");

    @Test
    void everyCase_validExactlyWhenCPythonReadsIt() throws IOException {
        SoftAssertions soft = new SoftAssertions();
        int compared = 0;
        for (String line : Files.readAllLines(cases(), StandardCharsets.US_ASCII)) {
            if (line.isEmpty()) {
                continue;
            }
            String[] parts = line.split("\t", -1);
            byte[] body = HexFormat.of().parseHex(parts[0]);
            String python = new String(HexFormat.of().parseHex(parts[1]), StandardCharsets.UTF_8);
            boolean pythonReads = !python.startsWith("JSONDecodeError: ") && !python.equals("unparsable");
            PythonBytes.Text text = PythonBytes.asUtf8(body);
            boolean valid = text != null
                    && JsonTokenizer.tokenize(
                                    text.bytes(),
                                    text.from(),
                                    text.to(),
                                    new JsonListener() {},
                                    JsonTokenizer.Grammar.PYTHON)
                            == JsonTokenizer.Outcome.VALID;
            if (python.equals("unparsable")
                    && text != null
                    && LONG_INTEGER
                            .matcher(new String(text.bytes(), StandardCharsets.ISO_8859_1))
                            .find()) {
                continue;
            }
            soft.assertThat(valid).as("%s: Python says %s", parts[0], python).isEqualTo(pythonReads);
            compared++;
        }
        soft.assertAll();
        assertThat(compared).isGreaterThan(1000);
    }

    private static Path cases() {
        for (Path at = Path.of("").toAbsolutePath(); at != null; at = at.getParent()) {
            Path file = at.resolve("testdata/python-json/cases.tsv");
            if (Files.isRegularFile(file)) {
                return file;
            }
        }
        throw new IllegalStateException(
                "testdata/python-json/cases.tsv not found above " + Path.of("").toAbsolutePath());
    }
}

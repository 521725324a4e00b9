package grid.gateway.enginesim;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * The simulator's body reader ({@link PythonText}, {@link PythonJson}, {@link PythonRepr}) against CPython 3.11's
 * {@code json.loads}, the Python of the recorded vLLM: every body of {@code testdata/python-json/cases.tsv} (written
 * by {@code python_json_cases.py} beside it: valid bodies in every encoding {@code json.detect_encoding} tells
 * apart, and mutations of them) reads to the value Python reads, written as Python's {@code repr}, or fails with
 * Python's decode error at Python's position, or is unparsable where Python raises anything else.
 */
class PythonJsonCasesTest {
    @Test
    void everyRecordedCase_readAsCPythonReadsIt() throws IOException {
        List<String[]> cases = cases();
        assertThat(cases).hasSizeGreaterThan(1000);
        SoftAssertions soft = new SoftAssertions();
        for (String[] line : cases) {
            byte[] body = HexFormat.of().parseHex(line[0]);
            String expected = new String(HexFormat.of().parseHex(line[1]), StandardCharsets.UTF_8);
            soft.assertThat(outcome(body)).as(line[0]).isEqualTo(expected);
        }
        soft.assertAll();
    }

    /** What {@code python_json_cases.py} writes for {@code body}: the repr, the decode error, or "unparsable". */
    static String outcome(byte[] body) {
        int[] text = PythonText.decode(body);
        if (text == null) {
            return "unparsable";
        }
        try {
            return PythonRepr.of(PythonJson.loads(text));
        } catch (PythonJson.DecodeError e) {
            return "JSONDecodeError: " + e.words() + " @" + e.position();
        } catch (PythonJson.NotJson e) {
            return "unparsable";
        }
    }

    private static List<String[]> cases() throws IOException {
        List<String[]> lines = new ArrayList<>();
        Path file = Recordings.dir().resolveSibling("python-json").resolve("cases.tsv");
        for (String line : Files.readAllLines(file, StandardCharsets.US_ASCII)) {
            if (!line.isEmpty()) {
                lines.add(line.split("\t", -1));
            }
        }
        return lines;
    }
}

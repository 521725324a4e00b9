package grid.gateway.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MainTest {

    @Test
    void run_help_printsUsageAndExitsZero() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        int code = Main.run(new String[] {"--help"}, new PrintStream(bytes, true, StandardCharsets.UTF_8));

        assertThat(code).isZero();
        assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo(Main.USAGE + System.lineSeparator());
    }

    @Test
    void run_noArguments_exitsTwo() {
        assertThat(Main.run(new String[0], new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)))
                .isEqualTo(2);
    }

    @Test
    void run_unknownArgument_exitsTwo() {
        assertThat(Main.run(
                        new String[] {"--config", "grid.yaml"},
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)))
                .isEqualTo(2);
    }
}

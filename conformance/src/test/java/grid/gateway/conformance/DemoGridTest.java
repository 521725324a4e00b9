package grid.gateway.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The lines the demo prints to try it run as printed in another shell: over TLS each curl to the client listener
 * names the demo's CA file itself (the variable bin/demo sets lives only in the demo's own process).
 */
class DemoGridTest {

    @Test
    void instructions_overTls_nameTheCaFileInEveryCurlToTheClientPort() {
        String lines = DemoGrid.instructions(8443, 9090, Optional.of("/tmp/grid-demo-tls.x/ca.pem"));

        assertThat(lines).doesNotContain("$");
        assertThat(lines.lines().filter(l -> l.contains("https://127.0.0.1:8443")))
                .hasSize(3)
                .allSatisfy(l -> assertThat(l).contains("curl --cacert '/tmp/grid-demo-tls.x/ca.pem' -s"));
        assertThat(lines).contains("curl -s http://127.0.0.1:9090/metrics");
    }

    @Test
    void instructions_plain_useHttpWithoutACa() {
        String lines = DemoGrid.instructions(8080, 9090, Optional.empty());

        assertThat(lines)
                .contains("curl -s http://127.0.0.1:8080/v1/chat/completions")
                .doesNotContain("--cacert");
    }
}

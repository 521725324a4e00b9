package grid.gateway.app.config;

import static grid.gateway.app.config.TestConfigs.MINIMAL;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The edge settings of the {@code server} block: {@code max_connections: auto} and its formula, the admin
 * listener's loopback default, and {@code route_explain} with its token file (never shown in a problem).
 */
class EdgeSettingsTest {
    @TempDir
    Path dir;

    @Test
    void connectionsFor_keepsRoomForUpstreamConnectionsAndFiles() {
        assertThat(ServerSettings.Binding.connectionsFor(1024)).isEqualTo(256);
        assertThat(ServerSettings.Binding.connectionsFor(65_536)).isEqualTo(32_512);
        assertThat(ServerSettings.Binding.connectionsFor(1_048_576)).isEqualTo(524_032);
        // Below what the formula leaves room for: a few connections still.
        assertThat(ServerSettings.Binding.connectionsFor(256)).isEqualTo(16);
        assertThat(ServerSettings.Binding.connectionsFor(Long.MAX_VALUE)).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void defaults_autoConnections_loopbackAdmin_explainerOff() {
        ServerSettings server = ConfigLoader.load(TestConfigs.write(dir, "c.yaml", MINIMAL))
                .config()
                .server();

        assertThat(server.binding().maxConnections()).isEqualTo(ServerSettings.Binding.AUTO);
        assertThat(server.binding().connectionCap(OptionalLong.of(1024))).isEqualTo(256);
        assertThat(server.binding().connectionCap(OptionalLong.empty()))
                .as("unknown limit: none")
                .isZero();
        assertThat(server.binding().adminHost()).isEqualTo("127.0.0.1");
        assertThat(server.routeExplain()).isEqualTo(RouteExplainSettings.DISABLED);
    }

    @Test
    void maxConnections_numberOrAuto_othersRefused() {
        assertThat(ConfigLoader.load(TestConfigs.write(dir, "n.yaml", "server: {max_connections: 100}\n" + MINIMAL))
                        .config()
                        .server()
                        .binding()
                        .connectionCap(OptionalLong.of(1024)))
                .isEqualTo(100);
        assertThat(TestConfigs.problems(dir, "server: {max_connections: many}\n" + MINIMAL))
                .containsExactly(
                        "server.max_connections: \"many\" (expected: an integer in 0 (no limit) or more, or auto)");
    }

    @Test
    void routeExplain_enabled_readsItsTokens_anyLineAccepted() {
        TestConfigs.write(dir, "tokens", "first-token-0123456789\n\n  second-token-0123456789  \n");
        RouteExplainSettings explain = ConfigLoader.load(TestConfigs.write(
                        dir, "e.yaml", "server:\n  route_explain: {enabled: true, token_file: tokens}\n" + MINIMAL))
                .config()
                .server()
                .routeExplain();

        assertThat(explain.enabled()).isTrue();
        assertThat(explain.tokenFile()).hasValue(dir.resolve("tokens"));
        assertThat(explain.tokens().size()).isEqualTo(2);
        assertThat(explain.tokens().accepts("second-token-0123456789")).isTrue();
        assertThat(explain.tokens().accepts("second-token-012345678")).isFalse();
        assertThat(explain.tokens().toString()).isEqualTo("ExplainTokens[2 tokens]");
    }

    @Test
    void routeExplain_tokenFileBeginningWithAByteOrderMark_theMarkIsNoPartOfTheFirstToken() {
        TestConfigs.write(dir, "tokens", "\uFEFFfirst-token-0123456789\r\n");
        RouteExplainSettings explain = ConfigLoader.load(TestConfigs.write(
                        dir, "e.yaml", "server:\n  route_explain: {enabled: true, token_file: tokens}\n" + MINIMAL))
                .config()
                .server()
                .routeExplain();

        assertThat(explain.tokens().accepts("first-token-0123456789")).isTrue();
    }

    @Test
    void routeExplain_enabledWithoutAUsableTokenFile_refused_neverShowingAToken() {
        assertThat(TestConfigs.problems(dir, "server:\n  route_explain: {enabled: true}\n" + MINIMAL))
                .singleElement()
                .asString()
                .startsWith("server.route_explain.token_file: ");
        TestConfigs.write(dir, "short", "short-secret\n");
        assertThat(TestConfigs.problems(
                        dir, "server:\n  route_explain: {enabled: true, token_file: short}\n" + MINIMAL))
                .singleElement()
                .asString()
                .contains("line 1: a token of at least 16 characters")
                .doesNotContain("short-secret");
        // Off, the file is not read: a missing one is no problem.
        assertThat(ConfigLoader.load(TestConfigs.write(
                                dir,
                                "off.yaml",
                                "server:\n  route_explain: {enabled: false, token_file: missing}\n" + MINIMAL))
                        .config()
                        .server()
                        .routeExplain()
                        .enabled())
                .isFalse();
    }
}

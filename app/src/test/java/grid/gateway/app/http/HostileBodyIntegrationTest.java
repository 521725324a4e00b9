package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.routing.tag.ClusterDigest;
import grid.gateway.routing.testing.SeededTrials;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Parser abuse through the real gateway (reliability B17–B32): raw engines record the exact bytes forwarded. Every
 * hostile body is answered (never a 5xx from the gateway, never a hang) and reaches an engine byte for byte, except
 * the exact spans of tagged ids the gateway strips. Time bounds are generous (seconds) so a loaded machine cannot
 * fail them; the linear-time property itself is measured by the keyer's own tests.
 */
class HostileBodyIntegrationTest {
    private static final long GENEROUS_MILLIS = 20_000;

    @TempDir
    static Path dir;

    static ScriptedUpstream eastA;
    static ScriptedUpstream eastB;
    static GatewayHarness gateway;
    static String tagB;

    @BeforeAll
    static void start() {
        eastA = new ScriptedUpstream();
        eastB = new ScriptedUpstream();
        gateway = new GatewayHarness(dir, """
                server:
                  port: 0
                  admin_port: 0
                  max_body_bytes: 20971520
                gateway:
                  site: east
                sites:
                %s
                """.formatted(GatewayHarness.oneSite(eastA.url(), eastB.url())));
        tagB = "resp_east." + ClusterDigest.of("east-b") + "..b1";
    }

    @AfterAll
    static void stop() {
        gateway.close();
        eastA.close();
        eastB.close();
    }

    /** What one request led to: the gateway's status and the body bytes an engine received (null: none). */
    record Outcome(int status, byte[] forwarded, ScriptedUpstream engine, long millis) {
        String forwardedText() {
            return forwarded == null ? null : new String(forwarded, StandardCharsets.UTF_8);
        }
    }

    static Outcome post(String path, byte[] body) {
        int a = eastA.requests().size();
        int b = eastB.requests().size();
        long started = System.nanoTime();
        int status;
        try (RawHttp client = new RawHttp(gateway.server.port())) {
            client.send("POST " + path + " HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: "
                    + body.length + "\r\n\r\n");
            client.send(body);
            status = client.readResponses(1).status();
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        if (eastA.requests().size() > a) {
            return new Outcome(status, eastA.requests().get(a).body(), eastA, millis);
        }
        if (eastB.requests().size() > b) {
            return new Outcome(status, eastB.requests().get(b).body(), eastB, millis);
        }
        return new Outcome(status, null, null, millis);
    }

    static Outcome post(String path, String body) {
        return post(path, body.getBytes(StandardCharsets.UTF_8));
    }

    static double noKeys(String reason) {
        return gateway.metrics()
                .lines()
                .filter(l -> l.startsWith("grid_keyer_no_keys_total{reason=\"" + reason + "\""))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .sum();
    }

    /** Sends {@code body} and asserts it was answered 200 and forwarded unchanged, counted under {@code reason}. */
    static Outcome forwardedUnchanged(String path, byte[] body, String reason) {
        double before = reason == null ? 0 : noKeys(reason);
        Outcome outcome = post(path, body);
        assertThat(outcome.status()).isEqualTo(200);
        assertThat(outcome.forwarded()).isEqualTo(body);
        assertThat(outcome.millis()).isLessThan(GENEROUS_MILLIS);
        if (reason != null) {
            assertThat(noKeys(reason)).as(reason).isEqualTo(before + 1);
        }
        return outcome;
    }

    static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void b17_nesting2000And100000_forwardedUnchangedWithNoKeys() {
        for (int depth : new int[] {2_000, 100_000}) {
            String body = "{\"model\":\"demo-model\",\"messages\":" + "[".repeat(depth) + "]".repeat(depth) + "}";
            forwardedUnchanged("/v1/chat/completions", utf8(body), "parser_limit");
            String unclosed = "{\"model\":\"demo-model\",\"messages\":" + "[{\"a\":".repeat(depth);
            forwardedUnchanged("/v1/messages", utf8(unclosed), "parser_limit");
            // On a path whose body can name a stored id, a body the strict scanner rejects is refused.
            Outcome refused = post("/v1/responses", utf8(unclosed));
            assertThat(refused.status()).isEqualTo(400);
            assertThat(refused.millis()).isLessThan(GENEROUS_MILLIS);
        }
    }

    @Test
    void b19_megabyteNumbers_inAParameterAndInATool_forwardedUnchanged() {
        String digits = "9".repeat(1_000_000);
        String body = "{\"model\":\"demo-model\",\"temperature\":" + digits + "e" + digits + ",\"tools\":[{\"n\":-"
                + digits + ".5}],\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}";
        forwardedUnchanged("/v1/chat/completions", utf8(body), null);
    }

    @Test
    void b21_eightMebibyteString_keyedAndForwardedUnchanged() {
        String body = "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\""
                + "ab\\n".repeat(2_796_203) + "\"}]}";
        assertThat(body.length()).isGreaterThan(8 * 1024 * 1024);
        double unkeyed = noKeys("invalid_json") + noKeys("parser_limit");
        forwardedUnchanged("/v1/chat/completions", utf8(body), null);
        assertThat(noKeys("invalid_json") + noKeys("parser_limit")).isEqualTo(unkeyed);
    }

    @Test
    void b22_duplicateModelOrSalt_noKeysForwardedUnchanged() {
        String messages = "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]";
        forwardedUnchanged(
                "/v1/chat/completions",
                utf8("{\"model\":\"other\"," + messages + ",\"model\":\"demo-model\"}"),
                "duplicate_member");
        forwardedUnchanged(
                "/v1/messages",
                utf8("{\"model\":\"demo-model\",\"cache_salt\":\"a\"," + messages + ",\"cache_salt\":\"b\"}"),
                "duplicate_member");
    }

    @Test
    void b23_duplicatePreviousResponseId_everyCopyChecked() {
        String both = "{\"model\":\"demo-model\",\"previous_response_id\":\"" + tagB + "\",\"input\":\"x\","
                + "\"previous_response_id\":\"" + tagB + "\"}";
        Outcome pinned = post("/v1/responses", both);
        assertThat(pinned.status()).isEqualTo(200);
        assertThat(pinned.engine()).isSameAs(eastB);
        assertThat(pinned.forwardedText()).isEqualTo(both.replace(tagB, "resp_b1"));

        Outcome untagged = post("/v1/responses", both.replaceFirst(tagB, "resp_plain"));
        assertThat(untagged.status()).isEqualTo(404);
        assertThat(untagged.forwarded()).isNull();

        String tagA = "resp_east." + ClusterDigest.of("east-a") + "..a1";
        Outcome conflict = post("/v1/responses", both.replaceFirst(tagB, tagA));
        assertThat(conflict.status()).isEqualTo(400);
        assertThat(conflict.forwarded()).isNull();
    }

    @Test
    void b24_pinAfterOneMebibyteOfInput_stillPinned() {
        String body = "{\"model\":\"demo-model\",\"input\":\"" + "y".repeat(1 << 20) + "\",\"previous_response_id\":\""
                + tagB + "\"}";
        for (int i = 0; i < 3; i++) {
            Outcome outcome = post("/v1/responses", body);
            assertThat(outcome.status()).isEqualTo(200);
            assertThat(outcome.engine()).isSameAs(eastB);
            assertThat(outcome.forwardedText()).isEqualTo(body.replace(tagB, "resp_b1"));
        }
    }

    @Test
    void b25_pinFieldNestedOrInText_notAPin() {
        String nested = "{\"model\":\"demo-model\",\"metadata\":{\"previous_response_id\":\"" + tagB + "\"},"
                + "\"input\":\"\\\"previous_response_id\\\":\\\"" + tagB + "\\\"\"}";
        forwardedUnchanged("/v1/responses", utf8(nested), null);
    }

    @Test
    void b26_invalidUtf8_forwardedByteIdenticalWithNoKeys() {
        byte[][] bad = {{(byte) 0xC3, 0x28}, {(byte) 0xC0, (byte) 0xAF}, {(byte) 0xED, (byte) 0xA0, (byte) 0x80}};
        for (byte[] sequence : bad) {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            body.writeBytes(utf8("{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"a"));
            body.writeBytes(sequence);
            body.writeBytes(utf8("b\"}]}"));
            forwardedUnchanged("/v1/chat/completions", body.toByteArray(), "invalid_json");
        }
    }

    @Test
    void b27_loneSurrogates_forwardedUnchanged() {
        for (String text : List.of("\\ud800", "\\udc00", "?", "\\ud83d")) {
            forwardedUnchanged(
                    "/v1/chat/completions",
                    utf8("{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]}"),
                    null);
        }
    }

    @Test
    void b29_b30_malformedOrOddShapes_forwardedUnchangedRoutedOnLoad() {
        forwardedUnchanged(
                "/v1/chat/completions",
                utf8("{\"model\":\"demo-model\",\"tools\":[{\"a\":tru}],\"messages\":[]}"),
                "invalid_json");
        forwardedUnchanged("/v1/chat/completions", utf8("[{\"model\":\"demo-model\"}]"), "not_an_object");
        forwardedUnchanged("/v1/chat/completions", utf8("\"just a string\""), "not_an_object");
        forwardedUnchanged("/v1/completions", utf8("{\"model\":\"demo-model\",\"prompt\":[1,2,3]}"), "token_prompt");
        forwardedUnchanged(
                "/v1/chat/completions",
                utf8("{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"hologram\"}]}]}"),
                "missing_model");
        forwardedUnchanged(
                "/v1/chat/completions",
                utf8(
                        "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"hologram\"}]}]}"),
                "unknown_part_type");
    }

    @Test
    void b31_b32_randomValidAndHostileBodies_forwardedExceptStrippedTags() {
        SeededTrials.forAll(31, 300, random -> ApiBodies.sample(random, tagB), sample -> {
            Outcome outcome = post(sample.path(), sample.body());
            assertThat(outcome.status()).as("never a gateway 5xx").isLessThan(500);
            assertThat(outcome.millis()).isLessThan(GENEROUS_MILLIS);
            if (sample.expected() != null) {
                assertThat(outcome.status()).isEqualTo(200);
                assertThat(outcome.forwarded()).isEqualTo(sample.expected());
            } else if (outcome.forwarded() != null
                    && !new String(sample.body(), StandardCharsets.ISO_8859_1).contains("resp_")) {
                assertThat(outcome.forwarded()).isEqualTo(sample.body());
            }
        });
    }
}

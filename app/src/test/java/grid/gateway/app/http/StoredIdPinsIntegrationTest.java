package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.routing.tag.ClusterDigest;
import grid.gateway.routing.tag.TagKeyRing;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every place a Responses body names a stored id, through the whole gateway on real sockets, with a tag key and two
 * sites (docs/stored-ids.md): two tags naming different clusters answer 400 {@code conflicting_ids} in whatever pair
 * of places they sit (two fields, a field twice, the string and the object form of {@code conversation}, an id twice
 * in its object) and reach no engine; tags naming one cluster go there only, each stripped, every other byte of the
 * body as the client sent it (white space, escapes, the same names deeper in the body, which are no stored ids).
 */
class StoredIdPinsIntegrationTest {
    private static final String KEY = "pins-key-Hq4Zr8Vw2Lm6Tb";
    private static final TagKeyRing RING = TagKeyRing.parse(KEY);

    /** A response of east-a, its conversation, and two of west-a. */
    private static final String RESP_EAST = tag("resp_", "east", "east-a", "e1");

    private static final String CONV_EAST = tag("conv_", "east", "east-a", "ce");
    private static final String RESP_WEST = tag("resp_", "west", "west-a", "w1");
    private static final String CONV_WEST = tag("conv_", "west", "west-a", "cw");

    @TempDir
    Path dir;

    private final ScriptedUpstream east = new ScriptedUpstream();
    private final ScriptedUpstream west = new ScriptedUpstream();
    private GatewayHarness gateway;

    @BeforeEach
    void start() throws IOException {
        Path key = Files.writeString(dir.resolve("tag-key"), KEY + "\n");
        gateway = new GatewayHarness(
                dir, GatewayHarness.config("  tag_key_path: " + key, cluster("east", east) + cluster("west", west)));
    }

    @AfterEach
    void stop() {
        gateway.close();
        east.close();
        west.close();
    }

    private static String cluster(String site, ScriptedUpstream engine) {
        return """
                  - name: %s
                    clusters:
                      - name: %s-a
                        url: %s
                        metrics_url: http://127.0.0.1:1/metrics
                        models: [demo-model]
                """.formatted(site, site, engine.url());
    }

    private static String tag(String kind, String site, String cluster, String id) {
        String digest = ClusterDigest.of(cluster);
        return kind + site + "." + digest + "." + RING.sign(site, digest) + "." + id;
    }

    @ParameterizedTest
    @ValueSource(strings = {"/v1/responses", "/v1/responses/input_tokens", "/v1/responses/compact"})
    void twoClustersInAnyPairOfPlaces_400ConflictingIds_nothingForwarded(String path) {
        List<String> bodies = List.of(
                "{\"previous_response_id\":\"" + RESP_EAST + "\",\"conversation\":\"" + CONV_WEST + "\"}",
                "{\"previous_response_id\":\"" + RESP_WEST + "\",\"conversation\":{\"id\":\"" + CONV_EAST + "\"}}",
                "{\"previous_response_id\":\"" + RESP_EAST + "\",\"previous_response_id\":\"" + RESP_WEST + "\"}",
                "{\"conversation\":\"" + CONV_EAST + "\",\"conversation\":{\"id\":\"" + CONV_WEST + "\"}}",
                "{\"conversation\":{\"id\":\"" + CONV_WEST + "\",\"id\":\"" + CONV_EAST + "\"}}",
                "{\"conversation\":\"" + CONV_WEST + "\",\"previous\\u005fresponse_id\":\"" + RESP_EAST + "\"}");
        for (String body : bodies) {
            HttpResponse<String> answer = gateway.post(path, "{\"model\":\"demo-model\"," + body.substring(1));

            assertThat(answer.statusCode()).as(body).isEqualTo(400);
            assertThat(answer.body()).as(body).contains("\"code\":\"conflicting_ids\"");
        }
        assertThat(east.requests()).isEmpty();
        assertThat(west.requests()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"/v1/responses", "/v1/responses/input_tokens", "/v1/responses/compact"})
    void oneClusterInEveryPlace_forwardedThereOnly_eachTagStripped_everyOtherByteAsSent(String path) {
        String sent = "{ \"model\" : \"demo-model\",\n \"previous_response_id\" :\t\""
                + RESP_WEST.replace("resp_", "\\u0072esp_") + "\" , \"conversation\":{\"id\":\"" + CONV_WEST
                + "\", \"metadata\":{\"id\":\"" + CONV_EAST + "\"}}, \"input\":[{\"previous_response_id\":\""
                + RESP_EAST + "\"}], \"conversation\" : \"" + CONV_WEST + "\" }";

        HttpResponse<String> answer = gateway.post(path, sent);

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        assertThat(east.requests()).isEmpty();
        assertThat(west.requests()).hasSize(1);
        String forwarded = "{ \"model\" : \"demo-model\",\n \"previous_response_id\" :\t\"resp_w1\" ,"
                + " \"conversation\":{\"id\":\"conv_cw\", \"metadata\":{\"id\":\"" + CONV_EAST + "\"}},"
                + " \"input\":[{\"previous_response_id\":\"" + RESP_EAST + "\"}], \"conversation\" : \"conv_cw\" }";
        assertThat(new String(west.requests().getFirst().body(), StandardCharsets.UTF_8))
                .isEqualTo(forwarded);
        assertThat(west.requests().getFirst().target()).isEqualTo(path);
    }
}

package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.endpoint.Endpoint;
import grid.gateway.app.endpoint.EndpointTable;
import grid.gateway.app.endpoint.ErrorShape;
import io.helidon.http.Method;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every refusal of the client listener's route × method matrix, generated from the endpoint table: each row's path with
 * every method it does not define (HEAD, OPTIONS as a browser's preflight, PUT, PATCH, TRACE, a made-up one, GET on a
 * create, …) is 405 with the row's {@code Allow}; a path under each API that no row lists is 404, whatever the method.
 * Each is answered in its API's error shape (Anthropic's under {@code /v1/messages}), with an {@code X-Request-Id}, an
 * access line ({@code end: refused}) and the refusal counted by its reason; an answer to HEAD carries no content (RFC
 * 9110 §9.3.2), and the connection carries the next request, a model list pipelined behind each refusal.
 */
class RefusedMethodsIntegrationTest {
    @RegisterExtension
    static final BehindOneGateway GRID = new BehindOneGateway();

    private static final List<String> METHODS =
            List.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "BREW");
    private static final String MARKER = "/v1/models";

    /** A refusal the matrix expects: the request, its status, its {@code Allow} (null for a 404) and its shape. */
    private record Refusal(String method, String target, int status, String allow, ErrorShape shape) {}

    private static List<Refusal> matrix() {
        List<Refusal> refusals = new ArrayList<>();
        for (Endpoint row : EndpointTable.standard().rows()) {
            String target = row.path()
                    .replace("{response_id}", "resp" + ApiPath.TAG + "abc")
                    .replace("{conversation_id}", "conv" + ApiPath.TAG + "abc")
                    .replace("{item_id}", "msg_1");
            for (String method : METHODS) {
                if (!row.allows(Method.create(method))) {
                    refusals.add(new Refusal(method, target, 405, row.allowHeader(), row.errors()));
                }
            }
        }
        Map<String, ErrorShape> unlisted = Map.of(
                "/v1/chat/completions/x", ErrorShape.OPENAI,
                "/v1/completions/x", ErrorShape.OPENAI,
                "/v1/messages/x", ErrorShape.ANTHROPIC,
                "/v1/messages/batches", ErrorShape.ANTHROPIC,
                "/v1/responses/a/b/c", ErrorShape.OPENAI,
                "/v1/conversations/a/items/b/c", ErrorShape.OPENAI,
                "/v1/models/x", ErrorShape.OPENAI,
                "/", ErrorShape.OPENAI);
        unlisted.forEach((target, shape) -> {
            for (String method : METHODS) {
                refusals.add(new Refusal(method, target, 404, null, shape));
            }
        });
        return refusals;
    }

    @Test
    void everyMethodARouteDoesNotDefine_andEveryUnlistedPath_refusedInItsApisShape_connectionKept() {
        double notAllowedBefore = refused("method_not_allowed");
        double notFoundBefore = refused("path_not_found");
        List<Refusal> matrix = matrix();
        Map<String, Refusal> byId = new TreeMap<>();
        List<String> failures = new ArrayList<>();
        for (Refusal refusal : matrix) {
            List<PipelinedAnswers.Answer> answers = PipelinedAnswers.exchange(
                    GRID.gateway.server.port(), List.of(refusal.method(), "GET"), List.of(refusal.target(), MARKER));
            PipelinedAnswers.Answer answer = answers.getFirst();
            String what = refusal.method() + " " + refusal.target() + " -> " + answer.head() + answer.body();
            if (answer.status() != refusal.status()
                    || !String.valueOf(refusal.allow()).equals(String.valueOf(answer.header("Allow")))
                    || !"application/json".equals(answer.header("Content-Type"))
                    || answer.header("X-Request-Id") == null
                    || !shaped(refusal, answer)
                    || answers.get(1).status() != 200
                    || !answers.get(1).body().contains("\"object\":\"list\"")) {
                failures.add(what + " then " + answers.get(1).head());
            }
            byId.put(String.valueOf(answer.header("X-Request-Id")), refusal);
        }
        assertThat(failures).isEmpty();
        assertThat(GRID.forwarded()).isEmpty();
        long notAllowed = matrix.stream().filter(r -> r.status() == 405).count();
        assertThat(refused("method_not_allowed") - notAllowedBefore).isEqualTo(notAllowed);
        assertThat(refused("path_not_found") - notFoundBefore).isEqualTo(matrix.size() - notAllowed);
        // One access line each, with its method, status and end, and no bytes of content for a HEAD.
        GatewayHarness.await(
                "an access line for each refusal", () -> lines(byId).size() == byId.size());
        lines(byId).forEach((id, line) -> {
            Refusal refusal = byId.get(id);
            assertThat(line.getString("method")).as(id).isEqualTo(refusal.method());
            assertThat(line.getInt("status")).as(id).isEqualTo(refusal.status());
            assertThat(line.getString("end")).as(id).isEqualTo("refused");
            if (refusal.method().equals("HEAD")) {
                assertThat(line.getInt("bytes_out")).as(id).isZero();
            }
        });
    }

    /** Whether {@code answer}'s content is the refusal's error in its API's shape; none at all for HEAD. */
    private static boolean shaped(Refusal refusal, PipelinedAnswers.Answer answer) {
        if (refusal.method().equals("HEAD")) {
            return answer.body().isEmpty() && Integer.parseInt(answer.header("Content-Length")) > 0;
        }
        JsonObject body;
        try (var reader = Json.createReader(new StringReader(answer.body()))) {
            body = reader.readObject();
        }
        JsonObject error = body.getJsonObject("error");
        String id = answer.header("X-Request-Id");
        if (refusal.shape() == ErrorShape.ANTHROPIC) {
            return body.getString("type").equals("error")
                    && error.getString("type")
                            .equals(refusal.status() == 404 ? "not_found_error" : "invalid_request_error")
                    && body.getString("request_id").equals(id);
        }
        return !body.containsKey("type")
                && error.getString("code").equals(refusal.status() == 404 ? "not_found" : "method_not_allowed")
                && error.getString("request_id").equals(id);
    }

    private static double refused(String reason) {
        return GRID.gateway.metric("grid_requests_refused_total", "reason=\"" + reason + "\"");
    }

    /** The access lines of the refusals in {@code byId} written so far, by request id. */
    private static Map<String, JsonObject> lines(Map<String, Refusal> byId) {
        Map<String, JsonObject> lines = new TreeMap<>();
        for (String raw : GRID.gateway.accessLog.raw()) {
            try (var reader = Json.createReader(new StringReader(raw))) {
                JsonObject line = reader.readObject();
                if (byId.containsKey(line.getString("request_id"))) {
                    lines.put(line.getString("request_id"), line);
                }
            }
        }
        return lines;
    }
}

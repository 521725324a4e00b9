package grid.gateway.app.http;

import static java.util.Objects.requireNonNull;

import grid.gateway.app.config.GatewaySettings;
import grid.gateway.app.config.GatewaySnapshot;
import grid.gateway.app.endpoint.Classified;
import grid.gateway.app.endpoint.Endpoint;
import grid.gateway.app.endpoint.Endpoint.Handling;
import grid.gateway.app.endpoint.EndpointTable;
import grid.gateway.app.rewrite.RequestIdStripper;
import grid.gateway.app.rewrite.StoredIds;
import grid.gateway.routing.NamedId;
import grid.gateway.routing.SiteRouter;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.keyer.NoKeysReason;
import grid.gateway.routing.keyer.PromptKeyer;
import grid.gateway.routing.keyer.PromptKeys;
import io.helidon.http.Method;
import jakarta.json.Json;
import jakarta.json.JsonException;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.stream.JsonParser;
import jakarta.json.stream.JsonParserFactory;
import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Answers {@code POST /route/explain} on the admin port (docs/operations.md, "Why did it go there?"): what the gateway
 * would do now with a request to {@code path} carrying {@code body}, and why, without sending anything to an engine.
 * It takes the client flow's steps in the client flow's order (path policy, method, stored ids, new conversation,
 * keys) and asks the router's side-effect-free entry points ({@link SiteRouter#explain}, {@link SiteRouter#explainPin},
 * {@link SiteRouter#explainNewConversation}): the prefix memory, the affinity counters and the exploration draw are
 * left as they were.
 *
 * <p>Thread-safe: stateless; the config is read from the snapshot in force on every call.
 */
public final class RouteExplainer {
    private static final JsonParserFactory PARSERS = Json.createParserFactory(Map.of());

    private final SiteRouter router;
    private final EndpointTable endpoints;
    private final Supplier<GatewaySnapshot> snapshot;
    private final PromptKeyer keyer = new PromptKeyer();
    private final RequestIdStripper stripper = new RequestIdStripper();

    /** An explainer over the router, endpoint table and config that serve the client listener. */
    public RouteExplainer(SiteRouter router, EndpointTable endpoints, Supplier<GatewaySnapshot> snapshot) {
        this.router = requireNonNull(router, "router");
        this.endpoints = requireNonNull(endpoints, "endpoints");
        this.snapshot = requireNonNull(snapshot, "snapshot");
    }

    /**
     * The explainer's answer.
     *
     * @param status 200 with an explanation, or 400 when the request to explain is not one the gateway could take
     * @param json the body: the explanation, or {@code {"error":{"message":…,"type":"invalid_request_error",
     *     "code":…}}}
     */
    public record Answer(int status, String json) {}

    /** Explains a request of {@code method} to {@code target} (a path, perhaps with a query) carrying {@code body}. */
    public Answer explain(String target, String method, byte[] body) {
        if (!target.startsWith("/")) {
            return invalid("invalid_path", "The path to explain must start with '/'.");
        }
        int query = target.indexOf('?');
        Classified call;
        Method asked;
        try {
            call = endpoints.classify(query < 0 ? target : target.substring(0, query));
            asked = Method.create(method);
        } catch (IllegalArgumentException notHttp) {
            return invalid("invalid_request", "The path or method is not one an HTTP request can carry.");
        }
        GatewaySettings gateway = snapshot.get().config().gateway();
        PathPolicy policy = new PathPolicy(gateway.role(), gateway.allowedPaths());
        if (!policy.serves(call)) {
            return invalid("path_not_served", "This gateway does not serve the path " + call.rawPath() + ".");
        }
        Endpoint endpoint = call.endpoint();
        if (!endpoint.allows(asked)) {
            return invalid(
                    "method_not_allowed", "The path defines " + endpoint.allowHeader() + ", not " + method + ".");
        }
        if (body.length > 0 && !isJson(body)) {
            return invalid("invalid_json", "The body to explain is not JSON text.");
        }
        JsonObjectBuilder out = Json.createObjectBuilder().add("path", target).add("method", method);
        return new Answer(200, decide(call, body, policy, out).build().toString());
    }

    /**
     * The client flow's steps 1 and 3–6 (docs/design.md §3), each asked without effect; a provider names no stored id
     * ({@link PathPolicy#servesStoredIds()}).
     */
    private JsonObjectBuilder decide(Classified call, byte[] body, PathPolicy policy, JsonObjectBuilder out) {
        Endpoint endpoint = call.endpoint();
        if (endpoint.handling() == Handling.MODEL_LIST) {
            return out.add("handling", "model_list").add("outcome", "answered_by_gateway");
        }
        Optional<StoredIds> inBody = endpoint.idsInBody() ? stripper.read(body) : Optional.of(StoredIds.none());
        if (inBody.isEmpty()) {
            return ExplanationJson.refused(out.add("handling", "pinned"), ApiError.BODY_UNSCANNABLE);
        }
        List<NamedId> ids = new ArrayList<>();
        call.pathId().ifPresent(id -> ids.add(new NamedId(id.kind(), id.value())));
        ids.addAll(inBody.get().named());
        if (!ids.isEmpty()) {
            return policy.servesStoredIds()
                    ? ExplanationJson.pinned(out.add("handling", "pinned"), router.explainPin(ids))
                    : ExplanationJson.refused(out.add("handling", "pinned"), ApiError.ID_NOT_FOUND);
        }
        if (endpoint.handling() == Handling.NEW_CONVERSATION) {
            return ExplanationJson.newConversation(
                    out.add("handling", "new_conversation"), router.explainNewConversation());
        }
        PromptKeys keys = endpoint.keyedAs()
                .map(dialect -> keyer.key(dialect, body, router::keysMatter))
                .orElseGet(() -> new PromptKeys(
                        Optional.empty(), Optional.empty(), BlockKeys.none(), Optional.of(NoKeysReason.EMPTY_PROMPT)));
        return ExplanationJson.routed(out.add("handling", "routed"), router.explain(keys));
    }

    /** A 400 in the admin API's error shape. */
    static Answer invalid(String code, String message) {
        return new Answer(400, error(code, message));
    }

    /** The admin API's error shape: {@code {"error":{"message":…,"type":"invalid_request_error","code":…}}}. */
    static String error(String code, String message) {
        return Json.createObjectBuilder()
                .add(
                        "error",
                        Json.createObjectBuilder()
                                .add("message", message)
                                .add("type", "invalid_request_error")
                                .add("code", code))
                .build()
                .toString();
    }

    /**
     * {@code target} as it may be logged: its path, without the query and without a stored id
     * ({@link Classified#loggedPath()}: a stored id reads the response it names).
     */
    String logged(String target) {
        try {
            return endpoints.classify(target).loggedPath();
        } catch (IllegalArgumentException notHttp) {
            return "(not a path)";
        }
    }

    private static boolean isJson(byte[] body) {
        try (JsonParser parser = PARSERS.createParser(new ByteArrayInputStream(body))) {
            while (parser.hasNext()) {
                parser.next();
            }
            return true;
        } catch (JsonException | IllegalStateException | NoSuchElementException notJson) {
            return false;
        }
    }
}

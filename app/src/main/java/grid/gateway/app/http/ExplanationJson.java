package grid.gateway.app.http;

import grid.gateway.routing.Explanation;
import grid.gateway.routing.PinResult;
import grid.gateway.routing.Route;
import grid.gateway.routing.RouteDecision;
import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.select.AffinityOutcome;
import grid.gateway.routing.select.Candidate;
import grid.gateway.routing.select.Decision;
import grid.gateway.routing.select.Exploration;
import grid.gateway.routing.select.LoadGate;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * The JSON of {@code /route/explain} (its fields are documented in docs/operations.md, "Why did it go there?").
 *
 * <p>Stateless and thread-safe.
 */
final class ExplanationJson {
    private ExplanationJson() {}

    /** A routed request: the keys, every serving cluster, the selector's reasons and the outcome. */
    static JsonObjectBuilder routed(JsonObjectBuilder out, Explanation explanation) {
        out.add("model", text(explanation.keys().model()))
                .add("keys", explanation.keys().keys().size())
                .add("no_keys_reason", text(explanation.keys().noKeysReason().map(r -> r.label())));
        JsonArrayBuilder clusters = Json.createArrayBuilder();
        for (Explanation.ClusterCheck check : explanation.clusters()) {
            clusters.add(Json.createObjectBuilder()
                    .add("cluster", check.cluster().id().toString())
                    .add("admitted", check.refusal().isEmpty())
                    .add("refusal", text(check.refusal().map(r -> r.label())))
                    .add("windowed_depth", number(check.windowedDepth()))
                    .add("run", check.run())
                    .add("retention_seconds", number(check.retentionSeconds())));
        }
        out.add("clusters", clusters);
        explanation
                .decision()
                .ifPresentOrElse(
                        d -> reasons(out, d),
                        () -> out.addNull("candidates").addNull("sticky").addNull("gate"));
        out.add("exploration", exploration());
        return switch (explanation.route()) {
            case Route.Forward forward -> forwarded(out, forward.decision());
            case Route.UnknownModel unknown -> refused(out, ApiError.MODEL_NOT_FOUND);
            case Route.NoneAdmitted none -> refused(out, ApiError.NONE_ADMITTED);
        };
    }

    /** A request naming stored ids: the pin's result, answered without forwarding. */
    static JsonObjectBuilder pinned(JsonObjectBuilder out, PinResult result) {
        return switch (result) {
            case PinResult.Pinned p ->
                chosen(out.add("outcome", "pinned"), p.cluster()).addNull("answer");
            case PinResult.NotFound n -> refused(out, ApiError.ID_NOT_FOUND);
            case PinResult.Unavailable u -> refused(out, ApiError.PINNED_UNAVAILABLE);
            case PinResult.Conflict c -> refused(out, ApiError.CONFLICTING_IDS);
        };
    }

    /** {@code POST /v1/conversations}: the local site's least-queued admitted cluster first. */
    static JsonObjectBuilder newConversation(JsonObjectBuilder out, Route route) {
        if (route instanceof Route.Forward forward) {
            return chosen(
                            out.add("outcome", "new_conversation"),
                            forward.decision().cluster())
                    .addNull("answer");
        }
        return refused(out, ApiError.NONE_ADMITTED);
    }

    /** The gateway answers the request itself with {@code error}; nothing is forwarded. */
    static JsonObjectBuilder refused(JsonObjectBuilder out, ApiError error) {
        return out.add("outcome", "answered_by_gateway")
                .addNull("cluster")
                .add(
                        "answer",
                        Json.createObjectBuilder()
                                .add("status", error.status())
                                .add("error", error.name().toLowerCase(Locale.ROOT)));
    }

    private static JsonObjectBuilder forwarded(JsonObjectBuilder out, RouteDecision decision) {
        return chosen(
                        out.add(
                                "outcome",
                                decision.outcome().map(AffinityOutcome::label).orElse("one_candidate")),
                        decision.cluster())
                .add("run", decision.run())
                .add("predicted_cached_tokens", decision.predictedCachedTokens())
                .addNull("answer");
    }

    private static JsonObjectBuilder chosen(JsonObjectBuilder out, BackendCluster cluster) {
        return out.add("cluster", cluster.id().toString());
    }

    private static void reasons(JsonObjectBuilder out, Decision decision) {
        List<Candidate> ordered = decision.ordered();
        JsonArrayBuilder candidates = Json.createArrayBuilder();
        for (int i = 0; i < ordered.size(); i++) {
            Candidate c = ordered.get(i);
            JsonObjectBuilder row = Json.createObjectBuilder()
                    .add("cluster", c.cluster().id().toString())
                    .add("queue_depth", number(c.queueDepth()))
                    .add("queue_cost", c.queueCost())
                    .add("busy_share", c.busyShare())
                    .add("prefill_backlog_seconds", c.prefillBacklogSeconds());
            if (decision.runs().isEmpty()) {
                row.addNull("run");
            } else {
                row.add("run", decision.runs().get(i));
            }
            candidates.add(row);
        }
        JsonArrayBuilder set = Json.createArrayBuilder();
        decision.stickySet().forEach(c -> set.add(c.id().toString()));
        out.add("candidates", candidates)
                .add(
                        "sticky",
                        Json.createObjectBuilder()
                                .add("longest_run", decision.longestRun())
                                .add("sticky", decision.sticky())
                                .add("clusters", set));
        decision.gate().ifPresentOrElse(g -> out.add("gate", gate(g)), () -> out.addNull("gate"));
    }

    private static JsonObjectBuilder gate(Decision.Gate gate) {
        LoadGate.Weighing w = gate.weighing();
        return Json.createObjectBuilder()
                .add("sticky", gate.sticky().id().toString())
                .add("other", gate.other().id().toString())
                .add("run", gate.run())
                .add("worth", w.worth())
                .add("gap", number(w.gap()))
                .add("unit", w.inSeconds() ? "seconds" : "queued_requests")
                .add("reopens", w.reopens());
    }

    private static JsonObjectBuilder exploration() {
        return Json.createObjectBuilder()
                .add("fraction", Exploration.EXPLORE_FRACTION)
                .add("explained_as", "not_exploring");
    }

    private static JsonValue text(Optional<String> value) {
        return value.<JsonValue>map(Json::createValue).orElse(JsonValue.NULL);
    }

    private static JsonValue number(OptionalDouble value) {
        return value.isPresent() ? Json.createValue(value.getAsDouble()) : JsonValue.NULL;
    }
}

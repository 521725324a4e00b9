package grid.gateway.conformance.scenario;

import java.util.List;
import java.util.Map;

/** One step of a {@link Scenario}: a small closed vocabulary. */
public sealed interface Step {
    /**
     * Sends one request to the gateway's client port.
     *
     * @param method GET, POST or DELETE
     * @param path the raw path and query; {@code ${var}} expanded
     * @param body the body text (from {@code json:} or {@code body:}), null for none; {@code ${var}} expanded
     * @param headers extra request headers
     * @param save variables to set from JSON fields of the answer (variable → dotted field path, or {@code $served_by} for the cluster that served it)
     * @param async whether to go on as soon as an engine received the request, its answer awaited by {@link Release}
     */
    record Send(
            String method,
            String path,
            String body,
            Map<String, String> headers,
            Map<String, String> save,
            boolean async)
            implements Step {}

    /** Makes {@code cluster}'s engine hold the first byte of its next {@code times} answers until {@link Release}. */
    record HoldFirstByte(String cluster, int times) implements Step {}

    /** Lets held answers go and awaits every async send's answer, each expected to have {@code status}. */
    record Release(int status) implements Step {}

    /** Makes {@code cluster}'s engine report a queue depth of {@code depth}, then scrapes. */
    record SetQueue(String cluster, int depth) implements Step {}

    /** Advances the gateway's manual clock by {@code seconds}. */
    record Advance(double seconds) implements Step {}

    /**
     * Applies a new grid (and optionally gateway and plugins blocks; empty: the scenario's) as a live reload; with
     * {@code refused} (text the refusal must contain) the config loader must refuse it instead, and the config in
     * force stays.
     */
    record Reload(List<Scenario.Site> grid, Map<String, Object> gateway, Map<String, Object> plugins, String refused)
            implements Step {}

    /** Makes {@code cluster}'s engine answer the next {@code times} requests with {@code status}. */
    record FailNext(String cluster, int status, int times) implements Step {}

    /** Checks the last answer and the metrics. */
    record Expect(Expectation expectation) implements Step {}

    /** Sends {@code send} {@code times} times, each answer expected to have {@code status}. */
    record Repeat(int times, Send send, int status) implements Step {}
}

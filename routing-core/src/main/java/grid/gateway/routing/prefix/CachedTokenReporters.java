package grid.gateway.routing.prefix;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.keyer.ApiDialect;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Which clusters report cached prompt tokens on which API, learned from their answers, so that a usage without a
 * count can be told apart: "the engine reported 0" from "the engine does not report".
 *
 * <pre>
 *   a count n                         → n; the cluster reports on that API
 *   no count, and the cluster reports → 0 (vLLM with --enable-prompt-tokens-details writes null, or nothing in a
 *                                       stream's usage chunk, for 0)
 *   no count, otherwise               → nothing (vLLM without that flag never reports; on /v1/messages it never does)
 * </pre>
 *
 * A cluster stops counting as a reporter on an API after {@value #SILENT_LIMIT} answers in a row without a count
 * (its engines were restarted without the flag, or another engine took its place): silence is read as 0 only while
 * counts keep coming, and never for long enough to cut a usage horizon on its own. Learned per cluster and per API,
 * because engines differ per API (vLLM reports 0 explicitly on {@code /v1/responses}, never on
 * {@code /v1/messages}).
 *
 * <p>Thread-safe: each (cluster, API) state is updated atomically in a concurrent map.
 */
public final class CachedTokenReporters {
    /** Answers in a row without a count after which a reporter is no longer believed to report. */
    public static final int SILENT_LIMIT = 64;

    /** A cluster and an API. */
    private record Key(ClusterId cluster, Optional<ApiDialect> api) {}

    /**
     * What is known of one cluster on one API.
     *
     * @param reports whether it reported a count, with fewer than {@link #SILENT_LIMIT} silent answers since
     * @param silent answers without a count since its latest count
     */
    private record State(boolean reports, int silent) {}

    private final ConcurrentMap<Key, State> states = new ConcurrentHashMap<>();

    /** Nothing known: no cluster reports. */
    public CachedTokenReporters() {}

    /**
     * Reads one answer's report from {@code cluster}: the cached tokens it stands for, or empty when it says nothing
     * (a usage without a count from a cluster not known to report on that API).
     */
    public OptionalLong read(ClusterId cluster, UsageReport report) {
        requireNonNull(cluster, "cluster");
        requireNonNull(report, "report");
        Key key = new Key(cluster, report.api());
        if (report.cachedTokens().isPresent()) {
            states.put(key, new State(true, 0));
            return report.cachedTokens();
        }
        State after = states.computeIfPresent(
                key,
                (k, state) ->
                        state.reports() ? new State(state.silent() + 1 < SILENT_LIMIT, state.silent() + 1) : state);
        return after != null && after.reports() ? OptionalLong.of(0) : OptionalLong.empty();
    }

    /** Whether {@code cluster} is believed to report cached tokens on {@code api}. */
    public boolean reports(ClusterId cluster, Optional<ApiDialect> api) {
        State state = states.get(new Key(cluster, api));
        return state != null && state.reports();
    }

    /** Forgets clusters not in {@code live}. */
    public void retain(Set<ClusterId> live) {
        requireNonNull(live, "live");
        states.keySet().removeIf(key -> !live.contains(key.cluster()));
    }
}

package grid.gateway.routing;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.keyer.PromptKeys;
import grid.gateway.routing.load.Admission;
import grid.gateway.routing.load.ClusterPrices;
import grid.gateway.routing.load.EngineSample;
import grid.gateway.routing.load.PrefillBacklog;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.prefix.RunEvidence;
import grid.gateway.routing.prefix.UsageReport;
import grid.gateway.routing.select.Candidate;
import grid.gateway.routing.select.CandidateSelector;
import grid.gateway.routing.select.Decision;
import grid.gateway.routing.select.Selection;
import grid.gateway.routing.tag.ClusterDigest;
import grid.gateway.routing.tag.IdKind;
import grid.gateway.routing.tag.TagCodec;
import grid.gateway.routing.tag.TagKeyRing;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Makes the {@code grid_site_route} decision for one request (docs/design.md §3, §5, §6) and learns from its answer.
 *
 * <pre>
 *   route(keys)          candidates (admitted, serving the model) → CandidateSelector → Route
 *   pin(named ids)       StoredIdPins → the named cluster, if it still admits → PinResult
 *   explain(keys)        the same route, with its reasons, changing nothing (no draw, no count, memory read only)
 *   newConversation(t)   least-queued admitted cluster of the local site, else of any site
 *   answered(d, status)  2xx → confirm keys;  429 / 5xx → drop keys
 *   usageReported(d, n)  the engine's cached tokens → the cluster's usage horizon (learn_from_usage)
 *   scraped(c, sample)   queue depth → window; in flight sent before the scrape began → forgotten; engine series
 *                        → calibration (auto)
 *   ended(d)             d's answer ended (or it failed): no longer in flight at its cluster
 *   (expected_wait)      each forwarded request's uncached prefill → its cluster's PrefillBacklog (→ peers, backlog())
 *   firstToken(d)        (expected_wait) the backlog of d's cluster is what was sent after d
 * </pre>
 *
 * <p>Thread-safe: the grid, the settings and the key ring form one snapshot swapped atomically by
 * {@link #reconfigure}; every other part is thread-safe itself.
 */
public final class SiteRouter {
    private final RoutingParts parts;
    private final Admission admission;
    private final CandidateSelector selector;
    private final TagCodec codec = new TagCodec();
    private final ClusterLoads loads;
    private volatile Snapshot snapshot;

    /** The grid, settings and key ring in force, replaced together. */
    private record Snapshot(Grid grid, PrefixAffinitySettings settings, TagKeyRing keyRing, LoadRules load) {}

    /** A router over {@code grid}; the prefix memory is configured for it at once. */
    public SiteRouter(Grid grid, PrefixAffinitySettings settings, TagKeyRing keyRing, RoutingParts parts) {
        this(grid, settings, keyRing, parts, LoadRules.SEED);
    }

    /** A router over {@code grid} with the {@code load} block's selection rules. */
    public SiteRouter(
            Grid grid, PrefixAffinitySettings settings, TagKeyRing keyRing, RoutingParts parts, LoadRules load) {
        this.parts = requireNonNull(parts, "parts");
        this.loads = new ClusterLoads(parts);
        this.admission = new Admission(parts.window(), parts.ejector());
        this.selector = new CandidateSelector(parts.random());
        reconfigure(grid, settings, keyRing, load);
    }

    /** {@link #reconfigure(Grid, PrefixAffinitySettings, TagKeyRing, LoadRules)} with the seed's rules. */
    public void reconfigure(Grid grid, PrefixAffinitySettings settings, TagKeyRing keyRing) {
        reconfigure(grid, settings, keyRing, LoadRules.SEED);
    }

    /**
     * Applies a new serving config with the {@code load} block's selection rules: clusters that left lose their
     * memory, window, calibration, backlog and ejection state; a cluster moved to another URL, its ejection state.
     */
    public void reconfigure(Grid grid, PrefixAffinitySettings settings, TagKeyRing keyRing, LoadRules load) {
        Set<ClusterId> ids = grid.clusters().stream().map(BackendCluster::id).collect(Collectors.toSet());
        parts.memory().reconfigure(ids, settings);
        parts.window().retain(ids);
        parts.ejector().reconfigure(grid.clusters());
        loads.retain(ids);
        parts.backlog().retain(ids);
        snapshot = new Snapshot(grid, settings, requireNonNull(keyRing, "keyRing"), requireNonNull(load, "load"));
    }

    /** One scrape of {@code cluster} that took no time: {@link #scraped(ClusterId, EngineSample, long)} begun now. */
    public void scraped(ClusterId cluster, EngineSample sample) {
        scraped(cluster, sample, scrapeMark());
    }

    /**
     * Where a scrape beginning now stands among the requests sent: pass it to
     * {@link #scraped(ClusterId, EngineSample, long)} when the scrape is recorded, however long it took.
     */
    public long scrapeMark() {
        return loads.mark();
    }

    /**
     * One scrape of {@code cluster}, begun at {@code mark} ({@link #scrapeMark()}): its queue depth enters the window
     * (the requests sent before the scrape began are now in that depth, and no longer count as in flight), and its
     * engine series feed the cluster's calibration. A cluster not in the grid is ignored.
     */
    public void scraped(ClusterId cluster, EngineSample sample, long mark) {
        requireNonNull(cluster, "cluster");
        requireNonNull(sample, "sample");
        Snapshot current = snapshot;
        current.grid().cluster(cluster).ifPresent(c -> loads.scraped(c, sample, mark, current.settings()));
    }

    /**
     * The engine series {@code cluster}'s latest scrape lacked that its {@code auto} estimates need (by exposition
     * name): each disables only the estimate that needs it.
     */
    public Set<String> missingSeries(ClusterId cluster) {
        return loads.missing(requireNonNull(cluster, "cluster"));
    }

    /** The prices and capacity in force for {@code cluster} (configured, or measured under {@code auto}). */
    public ClusterPrices prices(ClusterId cluster) {
        Snapshot current = snapshot;
        OptionalInt limit =
                current.grid().cluster(cluster).map(BackendCluster::maxRunning).orElse(OptionalInt.empty());
        ClusterPrices prices = loads.prices(cluster, limit, current.settings());
        return new ClusterPrices(
                prices.prefillTokensPerSecond(),
                prices.queuedRequestSeconds(),
                OptionalInt.of(parts.memory().capacity(cluster)),
                prices.measuredPrefill(),
                prices.measuredQueued());
    }

    /** The usage horizon learned for {@code cluster} ({@code Long.MAX_VALUE}: none, only the TTL). */
    public long horizonNanos(ClusterId cluster) {
        return parts.memory().horizonNanos(cluster);
    }

    /** Requests sent to {@code cluster} since its latest scrape began that have not ended. */
    public int inFlightSinceScrape(ClusterId cluster) {
        return loads.inFlight(cluster);
    }

    /** The prefill backlog of {@code expected_wait} ({@link RoutingParts#backlog}): shares own sends, takes peers'. */
    public PrefillBacklog backlog() {
        return parts.backlog();
    }

    /** The grid in force. */
    public Grid grid() {
        return snapshot.grid();
    }

    /**
     * Whether a request's keys can change a decision for {@code model}: at least two clusters of the grid serve it
     * (draining or not admitting now included, since what the memory learns now decides when they admit again).
     * With one, or none, the keyer need not walk the prompt (docs/design.md §4).
     */
    public boolean keysMatter(String model) {
        return snapshot.grid().servedByMany(model);
    }

    /** Routes a request by prefix affinity and load. */
    public Route route(PromptKeys keys) {
        return route(keys, Set.of());
    }

    /**
     * Routes a request again after a connect failure, leaving out the clusters already tried; the retry is not
     * counted as a second affinity decision.
     */
    public Route route(PromptKeys keys, Set<ClusterId> tried) {
        Snapshot current = snapshot;
        List<BackendCluster> serving =
                keys.model().map(current.grid()::serving).orElse(current.grid().clusters());
        if (serving.isEmpty()) {
            return new Route.UnknownModel(keys.model().orElse(""));
        }
        List<Candidate> candidates = admitted(serving, tried);
        if (candidates.isEmpty()) {
            return new Route.NoneAdmitted();
        }
        Selection chosen = selector.select(
                candidates,
                keys.keys(),
                new MemoryRuns(parts.memory()),
                current.settings(),
                current.load().orderBy());
        if (tried.isEmpty()) {
            chosen.outcome()
                    .ifPresent(o ->
                            parts.listener().affinityDecided(o, chosen.cluster().id(), chosen.run()));
        }
        RunEvidence evidence = parts.memory().evidence(chosen.cluster().id(), keys.keys());
        RouteDecision decision =
                new RouteDecision(chosen.cluster(), chosen.outcome(), chosen.run(), keys.keys(), evidence);
        return new Route.Forward(loads.forwarded(decision, current.settings(), current.load()), candidates.size());
    }

    /**
     * What {@link #route(PromptKeys)} would do with {@code keys} now, and why, changing nothing: the random source is
     * not drawn (the request does not explore, ties keep config order), nothing is counted, and the prefix memory is
     * only read.
     */
    public Explanation explain(PromptKeys keys) {
        Snapshot current = snapshot;
        List<BackendCluster> serving =
                keys.model().map(current.grid()::serving).orElse(current.grid().clusters());
        long now = parts.clock().nanoTime();
        List<Explanation.ClusterCheck> checks = serving.stream()
                .map(c -> new Explanation.ClusterCheck(
                        c,
                        admission.refusal(c, now),
                        admission.worstQueueDepth(c.id(), now),
                        parts.memory().run(c.id(), keys.keys()),
                        retentionSeconds(c)))
                .toList();
        if (serving.isEmpty()) {
            return new Explanation(
                    keys, checks, new Route.UnknownModel(keys.model().orElse("")), Optional.empty());
        }
        List<Candidate> candidates = admitted(serving, Set.of());
        if (candidates.isEmpty()) {
            return new Explanation(keys, checks, new Route.NoneAdmitted(), Optional.empty());
        }
        Decision decision = selector.explain(
                candidates,
                keys.keys(),
                new MemoryRuns(parts.memory()),
                current.settings(),
                current.load().orderBy());
        Selection chosen = decision.selection();
        RouteDecision forward = new RouteDecision(chosen.cluster(), chosen.outcome(), chosen.run(), keys.keys());
        return new Explanation(keys, checks, new Route.Forward(forward, candidates.size()), Optional.of(decision));
    }

    /** {@code cluster}'s retention in seconds, empty while unbounded ({@link Explanation.ClusterCheck}). */
    private OptionalDouble retentionSeconds(BackendCluster cluster) {
        long nanos = parts.memory().retentionNanos(cluster.id());
        return nanos == Long.MAX_VALUE ? OptionalDouble.empty() : OptionalDouble.of(nanos / 1e9);
    }

    /**
     * Routes {@code POST /v1/conversations}, leaving out the clusters {@code tried} (after a connect failure): a new
     * conversation stays on the local site when it admits requests, else goes by load to any admitted cluster.
     */
    public Route newConversation(Set<ClusterId> tried) {
        List<Candidate> candidates = conversationCandidates(tried);
        if (candidates.isEmpty()) {
            return new Route.NoneAdmitted();
        }
        Candidate first = selector.orderByLoad(candidates).getFirst();
        long stamp = loads.sent(first.cluster().id());
        return new Route.Forward(RouteDecision.unkeyed(first.cluster()).stamped(stamp), candidates.size());
    }

    /** What {@link #newConversation(Set)} would do now, changing nothing (ties keep config order). */
    public Route explainNewConversation() {
        List<Candidate> candidates = conversationCandidates(Set.of());
        if (candidates.isEmpty()) {
            return new Route.NoneAdmitted();
        }
        Candidate first = selector.explainOrder(candidates).getFirst();
        return new Route.Forward(RouteDecision.unkeyed(first.cluster()), candidates.size());
    }

    private List<Candidate> conversationCandidates(Set<ClusterId> tried) {
        Grid grid = snapshot.grid();
        List<BackendCluster> local = grid.clusters().stream()
                .filter(c -> c.id().site().equals(grid.localSite()))
                .toList();
        List<Candidate> candidates = admitted(local, tried);
        return candidates.isEmpty() ? admitted(grid.clusters(), tried) : candidates;
    }

    /** Resolves the stored ids a request names, each of its place's kind, to the one cluster that may serve it. */
    public PinResult pin(List<NamedId> named) {
        PinResult result = explainPin(named);
        switch (result) {
            case PinResult.Pinned p -> {
                // Its decision is made by the caller, without a stamp: its end takes off the newest request there.
                loads.sent(p.cluster().id());
                parts.listener().pinned(PinnedOutcome.ROUTED);
            }
            case PinResult.NotFound n -> parts.listener().pinned(PinnedOutcome.NOT_FOUND);
            case PinResult.Unavailable u -> parts.listener().pinned(PinnedOutcome.UNAVAILABLE);
            case PinResult.Conflict c -> {}
        }
        return result;
    }

    /** What {@link #pin} would resolve {@code named} to now, counting nothing. */
    public PinResult explainPin(List<NamedId> named) {
        Snapshot current = snapshot;
        PinResult result = StoredIdPins.resolve(named, current.grid(), current.keyRing(), codec);
        if (result instanceof PinResult.Pinned pinned
                && !admission.admits(pinned.cluster(), parts.clock().nanoTime())) {
            result = new PinResult.Unavailable(pinned.cluster());
        }
        return result;
    }

    /** Tags an engine id with the cluster that stored it, even one no tag carries ({@link TagCodec#formatAny}). */
    public String tag(String engineId, BackendCluster cluster) {
        IdKind kind = IdKind.of(engineId).orElseThrow(() -> new IllegalArgumentException("not a resp_/conv_ id"));
        String site = cluster.id().site().value();
        String digest = ClusterDigest.of(cluster.id().name());
        return codec.formatAny(kind, site, digest, snapshot.keyRing().sign(site, digest), engineId);
    }

    /**
     * The upstream answered {@code status}: 2xx confirms the request's keys at that cluster, 429 and 5xx drop
     * them, anything else teaches nothing. Any answer shows the cluster is reachable.
     */
    public void answered(RouteDecision decision, int status) {
        ClusterId cluster = decision.cluster().id();
        parts.ejector().recordSuccess(cluster);
        BlockKeys keys = decision.keys();
        if (keys.isEmpty()) {
            return;
        }
        if (status >= 200 && status < 300) {
            parts.memory().confirm(cluster, keys);
            parts.listener().keysLearned(cluster, true, keys.size());
        } else if (status == 429 || (status >= 500 && status < 600)) {
            parts.memory().drop(cluster, keys);
            parts.listener().keysLearned(cluster, false, keys.size());
        }
    }

    /**
     * The request routed by {@code decision} gave its first token (its prompt is computed): with
     * {@code load.order_by: expected_wait} its cluster's prefill backlog is re-anchored ({@link PrefillBacklog}).
     */
    public void firstToken(RouteDecision decision) {
        parts.backlog()
                .firstToken(
                        decision.cluster().id(),
                        decision.backlogMark(),
                        parts.clock().nanoTime());
    }

    /**
     * The answer to a request routed by {@code decision} reported {@code cachedTokens} (its usage): with
     * {@code learn_from_usage}, the cluster's usage horizon learns whether the engine still held what the memory
     * believed.
     */
    public void usageReported(RouteDecision decision, long cachedTokens) {
        parts.memory().usageReported(decision.cluster().id(), decision.evidence(), cachedTokens);
    }

    /**
     * The answer to a request routed by {@code decision} carried a usage: returns the cached tokens it stands for
     * ({@code CachedTokenReporters}: a usage without a count is 0 where the cluster is known to report on that API,
     * else nothing), and with {@code learn_from_usage} teaches them as {@link #usageReported(RouteDecision, long)}.
     */
    public OptionalLong usageReported(RouteDecision decision, UsageReport report) {
        return parts.memory().usageReported(decision.cluster().id(), decision.evidence(), report);
    }

    /**
     * The request routed by {@code decision} ended: its answer was relayed whole, or it failed (a connect failure
     * included). It is no longer in flight at its cluster ({@code count_sent_since_scrape}).
     */
    public void ended(RouteDecision decision) {
        loads.ended(requireNonNull(decision, "decision"));
    }

    /** The connection to {@code cluster} (at its URL then) failed before any byte was sent. */
    public void connectFailed(BackendCluster cluster) {
        parts.ejector().recordConnectFailure(cluster, parts.clock().nanoTime());
    }

    private List<Candidate> admitted(List<BackendCluster> clusters, Set<ClusterId> tried) {
        Snapshot current = snapshot;
        long now = parts.clock().nanoTime();
        List<Candidate> candidates = new ArrayList<>();
        for (BackendCluster cluster : clusters) {
            if (!tried.contains(cluster.id()) && admission.admits(cluster, now)) {
                OptionalDouble depth = admission.worstQueueDepth(cluster.id(), now);
                candidates.add(loads.candidate(cluster, depth, current.settings(), current.load(), now));
            }
        }
        return candidates;
    }
}

package grid.gateway.routing;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.keyer.PromptKeys;
import grid.gateway.routing.load.Admission;
import grid.gateway.routing.load.Calibration;
import grid.gateway.routing.load.ClusterPrices;
import grid.gateway.routing.load.EngineSample;
import grid.gateway.routing.load.Occupancy;
import grid.gateway.routing.load.PrefillBacklog;
import grid.gateway.routing.load.QueueSample;
import grid.gateway.routing.load.SentSinceScrape;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.prefix.RunEvidence;
import grid.gateway.routing.select.Candidate;
import grid.gateway.routing.select.CandidateSelector;
import grid.gateway.routing.select.Decision;
import grid.gateway.routing.select.ExpectedWait;
import grid.gateway.routing.select.LoadGate;
import grid.gateway.routing.select.LoadOrder;
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
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Makes the {@code grid_site_route} decision for one request (docs/design.md §3, §5, §6) and learns from its answer.
 *
 * <pre>
 *   route(keys)          candidates (admitted, serving the model) → CandidateSelector → Route
 *   pin(ids)             StoredIdPins → the named cluster, if it still admits → PinResult
 *   explain(keys)        the same route, with its reasons, changing nothing (no draw, no count, memory read only)
 *   newConversation()    least-queued admitted cluster of the local site, else of any site
 *   answered(d, status)  2xx → confirm keys;  429 / 5xx → drop keys
 *   usageReported(d, n)  the engine's cached tokens → the cluster's usage horizon (learn_from_usage)
 *   scraped(c, sample)   queue depth → window; sent-since-scrape → 0; engine series → calibration (auto)
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
    private final Calibration calibration = new Calibration();
    private final SentSinceScrape sent = new SentSinceScrape();
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
        this.admission = new Admission(parts.window(), parts.ejector());
        this.selector = new CandidateSelector(parts.random());
        reconfigure(grid, settings, keyRing, load);
    }

    /** Applies a new serving config: clusters that left lose their memory, window and ejection state. */
    public void reconfigure(Grid grid, PrefixAffinitySettings settings, TagKeyRing keyRing) {
        reconfigure(grid, settings, keyRing, LoadRules.SEED);
    }

    /**
     * Applies a new serving config, with {@code load.count_sent_since_scrape}: clusters that left lose their memory,
     * window, calibration and ejection state.
     */
    public void reconfigure(
            Grid grid, PrefixAffinitySettings settings, TagKeyRing keyRing, boolean countSentSinceScrape) {
        reconfigure(grid, settings, keyRing, new LoadRules(countSentSinceScrape, LoadOrder.DEPTH));
    }

    /**
     * Applies a new serving config with the {@code load} block's selection rules: clusters that left lose their
     * memory, window, calibration, backlog and ejection state.
     */
    public void reconfigure(Grid grid, PrefixAffinitySettings settings, TagKeyRing keyRing, LoadRules load) {
        Set<ClusterId> ids = grid.clusters().stream().map(BackendCluster::id).collect(Collectors.toSet());
        parts.memory().reconfigure(ids, settings);
        parts.window().retain(ids);
        parts.ejector().retain(ids);
        calibration.retain(ids);
        sent.retain(ids);
        parts.backlog().retain(ids);
        snapshot = new Snapshot(grid, settings, requireNonNull(keyRing, "keyRing"), requireNonNull(load, "load"));
    }

    /**
     * One scrape of {@code cluster}: its queue depth enters the window (the requests sent before it are now in that
     * depth), and its engine series feed the cluster's calibration.
     */
    public void scraped(ClusterId cluster, EngineSample sample) {
        requireNonNull(cluster, "cluster");
        requireNonNull(sample, "sample");
        if (sample.waiting().isPresent()) {
            parts.window()
                    .record(
                            cluster,
                            new QueueSample(sample.atNanos(), sample.waiting().getAsDouble()));
            sent.scraped(cluster);
        }
        calibration.observe(cluster, sample);
        calibration.capacity(cluster).ifPresent(capacity -> parts.memory().measuredCapacity(cluster, capacity));
    }

    /** The prices and capacity in force for {@code cluster} (configured, or measured under {@code auto}). */
    public ClusterPrices prices(ClusterId cluster) {
        Snapshot current = snapshot;
        ClusterPrices prices = calibration.prices(cluster, current.settings());
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

    /** Requests sent to {@code cluster} since its latest scrape. */
    public int sentSinceScrape(ClusterId cluster) {
        return sent.count(cluster);
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
                parts.memory()::run,
                current.settings(),
                current.load().orderBy());
        if (tried.isEmpty()) {
            chosen.outcome()
                    .ifPresent(o ->
                            parts.listener().affinityDecided(o, chosen.cluster().id(), chosen.run()));
        }
        RunEvidence evidence = parts.memory().evidence(chosen.cluster().id(), keys.keys());
        sent.sent(chosen.cluster().id());
        long mark = -1;
        if (current.load().orderBy() == LoadOrder.EXPECTED_WAIT) {
            ClusterId id = chosen.cluster().id();
            double uncached =
                    ExpectedWait.uncachedBlocks(keys.keys(), chosen.run()) * (double) LoadGate.TOKENS_PER_BLOCK;
            double prefill = calibration.prices(id, current.settings()).prefillTokensPerSecond();
            mark = parts.backlog().sent(id, uncached / prefill, parts.clock().nanoTime());
        }
        return new Route.Forward(
                new RouteDecision(chosen.cluster(), chosen.outcome(), chosen.run(), keys.keys(), evidence, mark),
                candidates.size());
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
                        parts.memory().run(c.id(), keys.keys())))
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
                parts.memory()::run,
                current.settings(),
                current.load().orderBy());
        Selection chosen = decision.selection();
        RouteDecision forward = new RouteDecision(chosen.cluster(), chosen.outcome(), chosen.run(), keys.keys());
        return new Explanation(keys, checks, new Route.Forward(forward, candidates.size()), Optional.of(decision));
    }

    /**
     * Routes {@code POST /v1/conversations}: a new conversation stays on the local site when it admits requests,
     * else goes by load to any admitted cluster.
     */
    public Route newConversation() {
        List<Candidate> candidates = conversationCandidates();
        if (candidates.isEmpty()) {
            return new Route.NoneAdmitted();
        }
        Candidate first = selector.orderByLoad(candidates).getFirst();
        sent.sent(first.cluster().id());
        return new Route.Forward(RouteDecision.unkeyed(first.cluster()), candidates.size());
    }

    /** What {@link #newConversation()} would do now, changing nothing (ties keep config order). */
    public Route explainNewConversation() {
        List<Candidate> candidates = conversationCandidates();
        if (candidates.isEmpty()) {
            return new Route.NoneAdmitted();
        }
        return new Route.Forward(
                RouteDecision.unkeyed(
                        selector.explainOrder(candidates).getFirst().cluster()),
                candidates.size());
    }

    private List<Candidate> conversationCandidates() {
        Grid grid = snapshot.grid();
        List<BackendCluster> local = grid.clusters().stream()
                .filter(c -> c.id().site().equals(grid.localSite()))
                .toList();
        List<Candidate> candidates = admitted(local, Set.of());
        return candidates.isEmpty() ? admitted(grid.clusters(), Set.of()) : candidates;
    }

    /** Resolves the stored ids a request names (path and body) to the one cluster that may serve it. */
    public PinResult pin(List<String> taggedIds) {
        PinResult result = explainPin(taggedIds);
        switch (result) {
            case PinResult.Pinned p -> {
                sent.sent(p.cluster().id());
                parts.listener().pinned(PinnedOutcome.ROUTED);
            }
            case PinResult.NotFound n -> parts.listener().pinned(PinnedOutcome.NOT_FOUND);
            case PinResult.Unavailable u -> parts.listener().pinned(PinnedOutcome.UNAVAILABLE);
            case PinResult.Conflict c -> {}
        }
        return result;
    }

    /** What {@link #pin} would resolve {@code taggedIds} to now, counting nothing. */
    public PinResult explainPin(List<String> taggedIds) {
        Snapshot current = snapshot;
        PinResult result = StoredIdPins.resolve(taggedIds, current.grid(), current.keyRing(), codec);
        if (result instanceof PinResult.Pinned pinned
                && !admission.admits(pinned.cluster(), parts.clock().nanoTime())) {
            result = new PinResult.Unavailable(pinned.cluster());
        }
        return result;
    }

    /** Tags an engine's stored id with the cluster that stored it, as it leaves the gateway (docs/design.md §5). */
    public String tag(String engineId, BackendCluster cluster) {
        IdKind kind = IdKind.of(engineId).orElseThrow(() -> new IllegalArgumentException("not a resp_/conv_ id"));
        String site = cluster.id().site().value();
        String digest = ClusterDigest.of(cluster.id().name());
        return codec.format(kind, site, digest, snapshot.keyRing().sign(site, digest), engineId);
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
        } else if (status == 429 || status >= 500) {
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

    /** The connection to {@code cluster} failed before any byte was sent. */
    public void connectFailed(ClusterId cluster) {
        parts.ejector().recordConnectFailure(cluster, parts.clock().nanoTime());
    }

    private List<Candidate> admitted(List<BackendCluster> clusters, Set<ClusterId> tried) {
        Snapshot current = snapshot;
        long now = parts.clock().nanoTime();
        List<Candidate> candidates = new ArrayList<>();
        for (BackendCluster cluster : clusters) {
            if (!tried.contains(cluster.id()) && admission.admits(cluster, now)) {
                ClusterId id = cluster.id();
                OptionalDouble depth = admission.worstQueueDepth(id, now);
                double busyShare = 0;
                if (current.load().countSentSinceScrape() && depth.isPresent()) {
                    int sentSince = sent.count(id);
                    Optional<Occupancy> batch = calibration.occupancy(id);
                    // What was sent since the scrape queues only beyond the slots that scrape found free.
                    double queued =
                            batch.map(b -> Math.max(0, sentSince - b.free())).orElse((double) sentSince);
                    depth = OptionalDouble.of(depth.getAsDouble() + queued);
                    busyShare = batch.map(b -> (b.running() + sentSince) / b.slots())
                            .orElse((double) sentSince);
                }
                Optional<ClusterPrices> prices = current.settings().auto().any()
                        ? Optional.of(calibration.prices(id, current.settings()))
                        : Optional.empty();
                double waiting = current.load().orderBy() == LoadOrder.EXPECTED_WAIT
                        ? parts.backlog().seconds(id, now)
                        : 0;
                candidates.add(new Candidate(cluster, depth, prices, busyShare, waiting));
            }
        }
        return candidates;
    }
}

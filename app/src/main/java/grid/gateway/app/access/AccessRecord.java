package grid.gateway.app.access;

import grid.gateway.app.endpoint.Classified;
import grid.gateway.app.endpoint.RedactedPath;
import grid.gateway.app.forward.RelayWatch;
import grid.gateway.app.forward.UpstreamFailure;
import grid.gateway.app.rewrite.PathId;
import grid.gateway.routing.RouteDecision;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.select.AffinityOutcome;
import grid.gateway.routing.tag.TagCodec;
import grid.gateway.routing.tag.TagParse;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * What one client request did, for its access log line: created by {@link AccessLog} when the request arrives, filled
 * in by the proxy where each decision happens, written once when the request ends.
 *
 * <p>Never holds a body, a header value or a stored id: the path and the method are kept with what may be a stored
 * id replaced by {@value #ID_PLACEHOLDER} ({@link RedactedPath}), and a path id's tag is kept only as the site and
 * cluster it names.
 *
 * <p>Not thread-safe: owned by the request's thread.
 */
public final class AccessRecord implements RelayWatch {
    /** What replaces a stored id in a logged path. */
    static final String ID_PLACEHOLDER = RedactedPath.ID;

    private static final TagCodec CODEC = new TagCodec();

    /**
     * The record of the request the current thread handles: {@link AccessLog} sets it around the rest of the chain,
     * which runs on the same (virtual) thread. Not the request's Helidon context: creating that context, with its
     * generated id, cost about 1% of a request's CPU.
     */
    static final ThreadLocal<@Nullable AccessRecord> CURRENT = new ThreadLocal<>();

    final String requestId;
    final long startNanos;
    /** The method as logged; null when the request line could not be read. */
    final @Nullable String method;

    Instant time = Instant.EPOCH;

    /** The client's address; null when not known (a request line refused before its connection's peer was read). */
    @Nullable
    String client = "";

    @Nullable
    String path;

    @Nullable
    ClusterId storedIdOwner;

    @Nullable
    ClusterId cluster;

    @Nullable
    AffinityOutcome affinity;

    int runBlocks;
    int candidates = -1;
    boolean pinned;
    long predictedCachedTokens = -1;
    long reportedCachedTokens = -1;
    int upstreamStatus = -1;

    @Nullable
    UpstreamFailure upstreamFailure;

    long upstreamHeadersNanos = -1;
    long bytesIn;
    boolean clientGone;
    /** Whether a graceful shutdown cut the request at its grace deadline ({@link ShutdownCut}). */
    boolean shutdownCut;

    @Nullable
    CountingStream counted;

    /** The body bytes of a cluster's answer sent whole, or -1 (streamed through {@link #counted}, or not relayed). */
    long wholeBytes = -1;

    boolean wholeFailed;

    private boolean logged;

    /** A record of {@code method} (as logged: a method spelled as a stored id is {@value #ID_PLACEHOLDER}). */
    AccessRecord(String requestId, @Nullable String method, long startNanos) {
        this.requestId = requestId;
        this.method = method == null ? null : RedactedPath.word(method);
        this.startNanos = startNanos;
    }

    /** Marks the record as one to write: the request arrived at {@code arrival} from {@code clientAddress}. */
    AccessRecord logged(Instant arrival, @Nullable String clientAddress) {
        logged = true;
        time = arrival;
        client = clientAddress;
        return this;
    }

    /**
     * The client's address as the access filter took it on arrival, or null when the request is not logged: the
     * proxy forwards the same text in {@code X-Forwarded-For} without building it a second time.
     */
    public @Nullable String loggedClient() {
        return logged ? client : null;
    }

    /**
     * The record of {@code request}; one nobody writes when the request did not pass {@link AccessLog} (a handler
     * used without it, in tests).
     */
    public static AccessRecord of(ServerRequest request) {
        AccessRecord record = CURRENT.get();
        return record != null ? record : detached(request);
    }

    private static AccessRecord detached(ServerRequest request) {
        String id =
                RequestIds.choose(request.headers().first(RequestIds.HEADER).orElse(null), RequestIds.randomUuids());
        return new AccessRecord(id, request.prologue().method().text(), 0);
    }

    /** The request's id: the client's {@code X-Request-Id} when well-formed, else one made for it. */
    public String requestId() {
        return requestId;
    }

    /**
     * The path as classified: a stored id in it is replaced by {@value #ID_PLACEHOLDER} (on a path no row matches, each
     * segment that may be one: {@link Classified#loggedPath()}), and its tag's cluster, when
     * the tag names one in {@code grid}, is kept (the tag's mac is not checked here: a forged tag logs the cluster it
     * claims).
     */
    public void path(Classified call, Grid grid) {
        path = call.loggedPath();
        Optional<PathId> id = call.pathId();
        if (id.isEmpty()) {
            return;
        }
        PathId at = id.get();
        if (CODEC.parse(at.value()) instanceof TagParse.Tagged tagged) {
            storedIdOwner = grid.clusterByTag(tagged.id().site(), tagged.id().clusterDigest())
                    .map(c -> c.id())
                    .orElse(null);
        }
    }

    /** The request body was read whole: {@code bytes} long. */
    public void bodyRead(int bytes) {
        bytesIn = bytes;
    }

    /** The request was routed among {@code count} candidates: the admitted clusters serving its model. */
    public void candidates(int count) {
        candidates = count;
    }

    /** A stored id the request names pinned it to the cluster it is then sent to. */
    public void pinned() {
        pinned = true;
    }

    /** The request is sent to {@code decision}'s cluster (again after a connect failure: the last try counts). */
    public void sending(RouteDecision decision) {
        cluster = decision.cluster().id();
        affinity = decision.outcome().orElse(null);
        runBlocks = decision.run();
        upstreamStatus = -1;
        upstreamFailure = null;
        upstreamHeadersNanos = -1;
    }

    /** The cluster answered {@code status} after {@code toHeaders}. */
    public void upstreamAnswered(int status, Duration toHeaders) {
        upstreamStatus = status;
        upstreamHeadersNanos = toHeaders.toNanos();
    }

    /** Forwarding failed before the client got any of the cluster's answer. */
    public void upstreamFailed(UpstreamFailure failure) {
        upstreamFailure = failure;
    }

    /**
     * A cluster's answer is about to stream to {@code response}: its body bytes are counted, and a failed write to
     * the client noticed (for the access line, {@code grid_client_gone_total} and the trace, whether or not the
     * request is logged). The gateway's own answers, sent whole, are not wrapped.
     */
    @Override
    public void streaming(ServerResponse response) {
        if (counted == null) {
            response.streamFilter(out -> {
                CountingStream stream = new CountingStream(out);
                counted = stream;
                return stream;
            });
        }
    }

    /** A cluster's answer went to the client whole: {@code bytes} of body, counted without wrapping the stream. */
    @Override
    public void sentWhole(int bytes) {
        wholeBytes = bytes;
    }

    /** Writing a cluster's whole answer to the client failed: nothing of its body counts as sent. */
    @Override
    public void wholeFailed() {
        wholeBytes = 0;
        wholeFailed = true;
    }

    /** Cached prompt tokens: {@code predicted} by the router, {@code reported} by the engine's usage. */
    public void cachedTokens(long predicted, OptionalLong reported) {
        predictedCachedTokens = predicted;
        reportedCachedTokens = reported.orElse(-1);
    }

    /** The disconnect probe found the client gone while the request was forwarded. */
    public void clientGone() {
        clientGone = true;
    }

    /**
     * How the request ends, as its access line says, when the handler ends by throwing {@code thrown} (null: it
     * returned) with {@code response} as it stands: the proxy asks before the access log, to tell the trace.
     */
    public Outcome outcome(@Nullable RuntimeException thrown, ServerResponse response) {
        ShutdownCut shutdown = ShutdownCut.CURRENT.get();
        shutdownCut |= shutdown != null && shutdown.marked();
        CountingStream out = counted;
        // A relayed answer is counted as it streams, or told when sent whole; the gateway's own answers are sent
        // whole, with their length.
        // An answer to HEAD carries no content, whatever its length says (the connection's writer drops it).
        long bytesOut = "HEAD".equals(method)
                ? 0
                : out != null
                        ? out.written()
                        : wholeBytes >= 0
                                ? wholeBytes
                                : response.headers().contentLength().orElse(0);
        boolean writeFailed = out != null ? out.failed() : wholeFailed;
        Ending ending = Ending.of(
                this,
                thrown,
                writeFailed,
                response.isSent() || bytesOut > 0,
                response.status().code());
        // Nothing went out: the client left, or the shutdown cut the request, before its answer began.
        boolean cutOff = ending == Ending.CLIENT_GONE || ending == Ending.SHUTDOWN_CUT;
        return new Outcome(ending, bytesOut, cutOff && bytesOut == 0 && !response.isSent());
    }

    /**
     * How a request ended: its {@code end}, the body bytes sent, and whether none of its answer went out (its access
     * line then has no status).
     */
    public record Outcome(Ending ending, long bytesOut, boolean nothingSent) {}

    /** Whether the gateway, not a cluster, gave the answer: nothing was forwarded, or forwarding failed. */
    boolean answeredByGateway() {
        return upstreamStatus < 0 || upstreamFailure != null;
    }
}

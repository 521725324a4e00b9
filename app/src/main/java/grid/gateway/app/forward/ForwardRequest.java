package grid.gateway.app.forward;

import static java.util.Objects.requireNonNull;

import grid.gateway.app.access.AccessRecord;
import grid.gateway.app.endpoint.Endpoint;
import grid.gateway.app.endpoint.ErrorShape;
import grid.gateway.app.trace.RequestTrace;
import io.helidon.http.Headers;
import io.helidon.http.Method;
import org.jspecify.annotations.Nullable;

/**
 * One client request as the proxy forwards it: held once, its target already stripped of tags when pinned.
 *
 * <p>A class, not a record: it holds the body array, and a record's equals and hashCode would compare arrays by
 * identity while looking like value equality. Nothing compares requests, so this class keeps Object's identity.
 *
 * <p>Its body is needed until the engine's answer begins (a request is sent again only before any byte of an answer:
 * another cluster after a failed connect, a new connection after a stale pooled one); from then on
 * {@link #answerBegan()} lets go of it and gives its bytes back to the budget, so a long answer (a stream read for
 * minutes) holds its relay's buffers only, not its request's prompt.
 *
 * <p>Thread-safe (immutable apart from the body array, which nobody modifies after reading and which is let go of
 * once).
 */
public final class ForwardRequest {
    private static final byte[] NO_BODY = new byte[0];

    private final Method method;
    private final Endpoint endpoint;
    private final String target;
    private final Headers headers;
    private final String peer;
    private volatile byte[] body;
    /** The request this one was derived from ({@link #with}), whose body is let go of with this one's; or null. */
    private final @Nullable ForwardRequest derivedFrom;

    private final AccessRecord access;
    private final RequestTrace trace;
    private final AnswerMemory memory;
    private final ClientProgress progress;
    private final SendTimeoutClaim timeoutClaim;
    private final Runnable bodyDone;

    /**
     * A request to forward.
     *
     * @param method the HTTP method
     * @param endpoint what the request path was classified as
     * @param target the raw path and query to send upstream
     * @param client the client's headers and address
     * @param body the body bytes to send upstream
     */
    public ForwardRequest(Method method, Endpoint endpoint, String target, Client client, byte[] body) {
        this.method = requireNonNull(method, "method");
        this.endpoint = requireNonNull(endpoint, "endpoint");
        this.target = requireNonNull(target, "target");
        this.headers = client.headers();
        this.peer = client.peer();
        this.trace = client.trace();
        this.body = requireNonNull(body, "body");
        this.access = client.access();
        this.memory = client.memory();
        this.progress = client.progress();
        this.timeoutClaim = client.timeoutClaim();
        this.bodyDone = client.bodyDone();
        this.derivedFrom = null;
    }

    /** {@code from} sent to {@code target} with {@code body}. */
    private ForwardRequest(ForwardRequest from, String target, byte[] body) {
        this.method = from.method;
        this.endpoint = from.endpoint;
        this.target = requireNonNull(target, "target");
        this.headers = from.headers;
        this.peer = from.peer;
        this.trace = from.trace;
        this.body = requireNonNull(body, "body");
        this.access = from.access;
        this.memory = from.memory;
        this.progress = from.progress;
        this.timeoutClaim = from.timeoutClaim;
        this.bodyDone = from.bodyDone;
        this.derivedFrom = from;
    }

    /**
     * Who sent the request.
     *
     * @param headers the client's headers
     * @param peer the client's address
     * @param access the request's access record: its request id, and what forwarding decides about it
     * @param trace the trace the client's request belongs to (and what the engine is told of it)
     * @param memory where the answer's relay counts what it holds
     * @param progress what the kernel tells of the client taking its answer (for the send timeout)
     * @param timeoutClaim the client connection's one claim on being counted as cut for the send timeout
     * @param bodyDone gives the body's bytes back to the budget they were reserved in (may run more than once)
     */
    public record Client(
            Headers headers,
            String peer,
            AccessRecord access,
            RequestTrace trace,
            AnswerMemory memory,
            ClientProgress progress,
            SendTimeoutClaim timeoutClaim,
            Runnable bodyDone) {
        public Client {
            requireNonNull(headers, "headers");
            requireNonNull(peer, "peer");
            requireNonNull(access, "access");
            requireNonNull(trace, "trace");
            requireNonNull(memory, "memory");
            requireNonNull(progress, "progress");
            requireNonNull(timeoutClaim, "timeoutClaim");
            requireNonNull(bodyDone, "bodyDone");
        }
    }

    /** The same request sent to {@code newTarget} with {@code newBody}; its {@link #answerBegan()} ends both. */
    public ForwardRequest with(String newTarget, byte[] newBody) {
        return new ForwardRequest(this, newTarget, newBody);
    }

    /**
     * The engine's answer began: the body will never be sent again, so it is let go of (with the body of the request
     * this one was derived from) and its bytes are given back to the budget. {@link #body()} is empty from now on.
     */
    public void answerBegan() {
        body = NO_BODY;
        if (derivedFrom != null) {
            derivedFrom.answerBegan();
        }
        bodyDone.run();
    }

    /** What the kernel tells of the client taking its answer. */
    public ClientProgress progress() {
        return progress;
    }

    /** The client connection's one claim on being counted as cut for the send timeout. */
    public SendTimeoutClaim timeoutClaim() {
        return timeoutClaim;
    }

    /** The request's access record: its request id, and what forwarding decides about it. */
    public AccessRecord access() {
        return access;
    }

    /** The HTTP method. */
    public Method method() {
        return method;
    }

    /** The raw path and query to send upstream. */
    public String target() {
        return target;
    }

    /** The client's headers. */
    public Headers headers() {
        return headers;
    }

    /** The client's address. */
    public String peer() {
        return peer;
    }

    /** Where the answer's relay counts what it holds. */
    public AnswerMemory memory() {
        return memory;
    }

    /** The trace of this request. */
    public RequestTrace trace() {
        return trace;
    }

    /** The body bytes to send upstream (empty once the answer began); not to be modified. */
    public byte[] body() {
        return body;
    }

    /** The shape of the gateway's own error answers to this request. */
    public ErrorShape errors() {
        return endpoint.errors();
    }

    /** Whether the engine computes the prompt's KV for this request, so that its answer teaches the prefix memory. */
    public boolean prefills() {
        return endpoint.prefills();
    }

    /** Whether answers to this request carry stored ids to tag (docs/design.md §5). */
    public boolean tagsIds() {
        return endpoint.tagsAnswers();
    }
}

package grid.gateway.app.forward;

import grid.gateway.app.access.RequestIds;
import grid.gateway.app.config.UpstreamSettings;
import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.time.MonotonicClock;
import grid.gateway.routing.time.SystemMonotonicClock;
import io.helidon.common.tls.Tls;
import io.helidon.http.Method;
import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Sends one request to one backend cluster over the gateway's own HTTP/1.1 connections (docs/design.md §9, §H18):
 *
 * <pre>
 *   acquire a pooled connection (quiet: nothing to read, not closed by the engine)   or connect a new one
 *     → write the request (RequestHeads: byte-exact target, hop-by-hop headers dropped, X-Request-Id, ...); a body
 *       too long to go with the head is handed to the kernel without waiting, and what it does not take is written
 *       on a thread of its own (BodyWriter) while the answer is awaited
 *     → read heads until a final one (HeadParser: interim 1xx skipped, a malformed head refused)
 *     → UpstreamAnswer: the relay reads its body; the connection is pooled only if the whole request went out before
 *       the answer came, the answer was read exactly, and it is a 2xx (an engine may refuse a request without
 *       reading all of it: {@link #requestWhole})
 *   a reused connection that fails before the first byte of its answer (written to a connection the engine had
 *   closed), answers 408 (the engine's keep-alive timeout, written as the request went out), or begins with what is
 *   no answer to this request (NotThisAnswer: bytes that cannot begin a status line, an answer naming an earlier
 *   request; what an earlier exchange left): sent once more on a new connection, whatever the method and path (the
 *   body is held, nothing reached the client); a failure after the answer began, or on a new connection, is not
 *   sent again
 * </pre>
 *
 * <p>Failures are sorted by when they happen ({@link UpstreamFailure}): connecting (the TLS handshake included) is
 * {@link UpstreamFailure#CONNECT}, so nothing was sent and another cluster may be tried; no head within the first-byte
 * timeout (counted from the head's write: a longer body is written meanwhile) or a write that waits longer than the
 * idle timeout is {@link UpstreamFailure#TIMEOUT}; anything else before the final head, a malformed head included, is
 * {@link UpstreamFailure#RESET}. Each failed connection is closed.
 *
 * <p>Thread-safe: the pool is; each exchange belongs to its request's thread.
 */
public final class UpstreamForwarder {
    private static final System.Logger LOG = System.getLogger(UpstreamForwarder.class.getName());
    /** 408 Request Timeout: what a server writes on a connection it closes for waiting too long for a request. */
    private static final int TIMED_OUT_WAITING = 408;

    private final UpstreamSettings settings;
    private final MonotonicClock clock;
    private final Function<BackendCluster, Optional<Tls>> tls;
    private final ScheduledExecutorService watchdog;
    private final TlsHandshakeFailure handshakes = new TlsHandshakeFailure();
    private final ConnectionPool pool;
    private final Connector connector;
    private final RequestHeads heads = new RequestHeads();
    private final BiConsumer<ClusterId, LeftoverFound> leftovers;

    /**
     * A forwarder with its own connection pool; {@code clock} times the wait for response headers, {@code tls} gives
     * each https cluster's TLS (empty: the JDK's trust), {@code watchdog} runs the idle alarms, {@code leftovers}
     * hears of each connection closed because bytes an engine wrote beyond its answers were found on it. Pooled
     * connections are kept per TLS, so a rotated certificate is used by new connections.
     */
    public UpstreamForwarder(
            UpstreamSettings settings,
            MonotonicClock clock,
            Function<BackendCluster, Optional<Tls>> tls,
            ScheduledExecutorService watchdog,
            BiConsumer<ClusterId, LeftoverFound> leftovers) {
        this.settings = settings;
        this.leftovers = leftovers;
        this.clock = clock;
        this.tls = tls;
        this.watchdog = watchdog;
        // Sockets age in real time, whatever clock the routing runs on.
        this.pool = new ConnectionPool(
                settings.maxConnectionsPerCluster(), settings.maxConnectionAge(), SystemMonotonicClock.INSTANCE);
        this.connector = new Connector(settings.connectTimeout(), watchdog);
    }

    /**
     * Sends {@code request} to {@code cluster}: its target (raw path and query, tags stripped), its headers less the
     * hop-by-hop ones, {@code X-Forwarded-For} with the client's address appended, and its body.
     */
    public Attempt send(BackendCluster cluster, ForwardRequest request) {
        Origin origin = Origin.of(cluster.url(), tlsOf(cluster));
        RequestHeads.Bytes bytes = heads.of(cluster.url(), origin, request);
        boolean head = request.method() == Method.HEAD;
        long start = clock.nanoTime();
        UpstreamConnection pooled = pool.acquire(origin);
        Exchanged outcome = pooled != null
                ? exchange(pooled, bytes, head, request, cluster)
                : connectAndExchange(cluster, origin, bytes, head, request);
        Attempt.Retry retry = null;
        if (outcome instanceof Exchanged.Failed failed
                && failed.sendAgain() != null
                && pooled != null
                && !Thread.currentThread().isInterrupted()) {
            LOG.log(
                    System.Logger.Level.DEBUG,
                    () -> "a reused connection to cluster " + cluster.id() + " failed before its answer began ("
                            + failed.cause() + "): the request is sent again on a new connection");
            retry = retry(failed.sendAgain(), cluster, pooled);
            outcome = connectAndExchange(cluster, origin, bytes, head, request);
        }
        return switch (outcome) {
            case Exchanged.Answered answered -> {
                handshakes.succeeded(cluster.id());
                yield new Attempt.Answered(answered.answer(), Duration.ofNanos(clock.nanoTime() - start), retry);
            }
            case Exchanged.Failed failed -> new Attempt.Failed(failed.failure(), retry);
        };
    }

    /**
     * The retry of a request of {@code cluster}'s that {@code reused} failed for {@code reason}: counted against the
     * cluster whose answer left what that connection began with when it was out of step (two clusters at one origin
     * share its connections, and the bytes are the earlier answer's engine's), else against {@code cluster}.
     */
    private static Attempt.Retry retry(RetryReason reason, BackendCluster cluster, UpstreamConnection reused) {
        ClusterId counted = reason == RetryReason.OUT_OF_STEP
                ? reused.clusterAnsweredBefore().orElse(cluster.id())
                : cluster.id();
        return new Attempt.Retry(reason, counted);
    }

    /** What one exchange on one connection gave. */
    private sealed interface Exchanged {
        record Answered(UpstreamAnswer answer) implements Exchanged {}

        /**
         * @param sendAgain why the request may be sent again on a new connection (the connection was reused and
         *     failed before any byte of the answer, or began with what is no answer to it); null when it may not
         */
        record Failed(UpstreamFailure failure, @Nullable RetryReason sendAgain, String cause) implements Exchanged {}
    }

    private Exchanged connectAndExchange(
            BackendCluster cluster, Origin origin, RequestHeads.Bytes bytes, boolean head, ForwardRequest request) {
        UpstreamConnection connection;
        try {
            connection = connector.open(origin);
            pool.opened(connection);
        } catch (IOException | RuntimeException failure) {
            TlsHandshakeFailure.reason(failure).ifPresent(reason -> handshakes.failed(cluster.id(), origin, reason));
            return new Exchanged.Failed(UpstreamFailure.CONNECT, null, String.valueOf(failure));
        }
        return exchange(connection, bytes, head, request, cluster);
    }

    /**
     * What hears of bytes found beyond an answer of {@code cluster}'s: past its end as it ends, or on its connection
     * idle after it (found by whichever request next looks at that connection, of this cluster or another at the
     * same origin).
     */
    private Consumer<LeftoverFound> leftoversOf(BackendCluster cluster) {
        return found -> leftover(cluster, found);
    }

    /** A connection to {@code cluster} was closed for bytes its engine wrote beyond the answers read there. */
    private void leftover(BackendCluster cluster, LeftoverFound found) {
        LOG.log(
                System.Logger.Level.DEBUG,
                () -> "a connection to cluster " + cluster.id() + " closed: bytes beyond its answers found ("
                        + found.label() + ")");
        leftovers.accept(cluster.id(), found);
    }

    /**
     * Writes {@code request}'s {@code bytes} on {@code connection} and reads its final head; the connection is closed
     * on failure. A body writer's slice is counted in the request's memory; {@code cluster}'s leftover count hears of
     * bytes found beyond the answer (past its end as it ends, or on the connection idle after it).
     */
    private Exchanged exchange(
            UpstreamConnection connection,
            RequestHeads.Bytes bytes,
            boolean head,
            ForwardRequest request,
            BackendCluster cluster) {
        String id = request.access().requestId();
        IdleAlarm alarm =
                IdleAlarm.arm(watchdog, SystemMonotonicClock.INSTANCE, settings.longestSilence(), connection::close);
        AnswerReader reader = connection.reader();
        reader.beginExchange();
        BodyWriter body = null;
        connection.requestSent(id, cluster.id(), leftoversOf(cluster));
        try {
            bytes.writeHead(connection, alarm);
            body = writeBody(connection, bytes.bodyAfterHead(), request.memory());
            reader.deadline(SystemMonotonicClock.INSTANCE, settings.firstByteTimeout());
            AnswerHead answerHead = HeadParser.read(reader, head);
            reader.noDeadline();
            if (answerHead.status() == TIMED_OUT_WAITING && connection.reused()) {
                // The engine gave up on the idle connection (its keep-alive timeout, a 408 then a close) as this
                // request went out: the 408 answers no request, so it is never the client's. Stale, as a reset is.
                if (body != null) {
                    body.stop();
                }
                alarm.close();
                connection.close();
                return new Exchanged.Failed(
                        UpstreamFailure.RESET, RetryReason.STALE_CONNECTION, "a 408 on a reused connection");
            }
            // An answer naming a request sent earlier on this connection (after the 408 of a keep-alive timeout,
            // which is retried whatever it names): the engine wrote an answer too many, so this is not the client's.
            if (answersAnEarlierRequest(connection, answerHead, id)) {
                throw new NotThisAnswer("the answer to a request sent earlier on this connection");
            }
            boolean requestWhole = requestWhole(body, answerHead);
            if (body != null) {
                body.stop();
            }
            return new Exchanged.Answered(new UpstreamAnswer(connection, answerHead, alarm, pool, requestWhole));
        } catch (IOException | RuntimeException failure) {
            letGo(connection, alarm, body);
            return failed(connection, failure, alarm.fired() || (body != null && body.timedOut()));
        } catch (Error error) {
            // An allocation out of memory, a stack overflow, a JDK class that failed to load: the request fails as
            // Helidon fails its handler, and the connection, mid-request, is closed with it, never left open.
            letGo(connection, alarm, body);
            throw error;
        }
    }

    /** Lets go of an exchange that did not get its answer: its body's writer, its alarm and its connection. */
    private static void letGo(UpstreamConnection connection, IdleAlarm alarm, @Nullable BodyWriter body) {
        if (body != null) {
            body.stop();
        }
        alarm.close();
        connection.close();
    }

    /**
     * Whether the engine is known to have taken the whole request when it answered, so that its connection may carry
     * another: only when the answer is a 2xx, which an engine gives to a request it has read. Not when the answer came
     * before the whole body went out ({@code body} still writing after the grace): the rest is not sent, and the
     * connection holds part of a request. Nor after any other answer, with or without a body: an engine may refuse a
     * request at any point of it (a 414 or a 431 at its request line or a header limit, a 413, a 400 or a 429 after
     * its head) and leave the rest unread, which the kernel took whole long before, and whether it then reads and drops
     * those bytes (RFC 9110 §10.1.1: it should say whether it will) or takes them for the start of the next request on
     * the connection, and answers that too, nothing the gateway sees tells apart. Such a connection is closed after
     * its answer.
     */
    private static boolean requestWhole(@Nullable BodyWriter body, AnswerHead answer) {
        boolean success = answer.status() >= 200 && answer.status() < 300;
        return success && (body == null || body.writtenWithin(BodyWriter.GRACE));
    }

    /**
     * Writes the body that did not go with the head: what the kernel takes at once here, the rest on a thread of its
     * own, so that an answer the engine gives before it has read the whole body is read at once ({@link BodyWriter});
     * null when nothing is left to write.
     */
    private @Nullable BodyWriter writeBody(UpstreamConnection connection, byte[] body, AnswerMemory memory)
            throws IOException {
        int taken = body.length == 0 ? 0 : connection.writeWithoutWaiting(body, 0, body.length);
        if (taken == body.length) {
            return null;
        }
        IdleAlarm alarm =
                IdleAlarm.arm(watchdog, SystemMonotonicClock.INSTANCE, settings.longestSilence(), connection::close);
        try {
            return BodyWriter.start(connection, body, taken, alarm, memory);
        } catch (RuntimeException | Error e) {
            alarm.close(); // no writer to end it: not left armed for the longest silence
            throw e;
        }
    }

    /**
     * Whether the answer's {@code X-Request-Id}, which an engine may echo (vLLM with
     * {@code --enable-request-id-headers}), names a request sent on {@code connection} before this one (whose id is
     * {@code id}): the engine wrote an answer too many, and the answers on the connection now come late (HTTP/1.1
     * shows it by no other byte). Not when it names {@code id} (a client that sent one id twice).
     */
    private static boolean answersAnEarlierRequest(UpstreamConnection connection, AnswerHead answer, String id) {
        return answer.headers()
                .first(RequestIds.HEADER)
                .map(named -> connection.namesAnEarlierRequest(named, id))
                .orElse(false);
    }

    private static Exchanged failed(UpstreamConnection connection, Exception failure, boolean silent) {
        String cause = String.valueOf(failure);
        boolean handshake = TlsHandshakeFailure.reason(failure).isPresent();
        if (handshake && connection.refusedByItsHandshake()) {
            // A TLS 1.3 server refuses a client certificate after the client's side of the handshake: nothing ran.
            return new Exchanged.Failed(UpstreamFailure.CONNECT, null, cause);
        }
        UpstreamFailure kind = silent ? UpstreamFailure.TIMEOUT : UpstreamFailure.of(failure);
        // Sent again: on a reused connection the engine had closed (nothing of an answer came: stale), or on which
        // what came first is no answer to this request (bytes an earlier exchange left, written after the connection
        // was found quiet: out of step).
        RetryReason again = null;
        if (kind == UpstreamFailure.RESET && connection.reused()) {
            if (failure instanceof NotThisAnswer) {
                again = RetryReason.OUT_OF_STEP;
            } else if (connection.reader().received() == 0
                    && !(failure instanceof MalformedAnswer)
                    && !handshake
                    && !TlsHandshakeFailure.metWritingAHandshake(failure)) {
                // Not after a handshake failure, nor a broken pipe met answering the engine's handshake: the engine
                // began that handshake (a renegotiation) after it read the request, where a stale connection is one
                // it closed unread.
                again = RetryReason.STALE_CONNECTION;
            }
        }
        return new Exchanged.Failed(kind, again, cause);
    }

    private @Nullable Tls tlsOf(BackendCluster cluster) {
        if (!"https".equalsIgnoreCase(cluster.url().getScheme())) {
            return null;
        }
        return tls.apply(cluster).orElseGet(JdkTls::get);
    }

    /**
     * The memory the pooled idle connections hold now (up to {@code max_connections_per_cluster} per origin): their
     * reader buffers, and over TLS the JDK's record buffers.
     */
    public long idleConnectionBytes() {
        return pool.idleBytes();
    }

    /**
     * Keeps pooled connections only for what {@code clusters}, those of the config in force, would open with the TLS in
     * force: the idle connections of any other origin (a cluster removed or moved, a certificate, trust store or
     * server name replaced) are closed now, and one such in use is closed when its answer ends. Called once a reload
     * is applied.
     */
    public void retainOnly(Collection<BackendCluster> clusters) {
        Set<Origin> origins = new HashSet<>();
        Set<ClusterId> ids = new HashSet<>();
        for (BackendCluster cluster : clusters) {
            origins.add(Origin.of(cluster.url(), tlsOf(cluster)));
            ids.add(cluster.id());
        }
        handshakes.retain(ids);
        int closed = pool.retainOnly(origins);
        if (closed > 0) {
            LOG.log(
                    System.Logger.Level.DEBUG,
                    () -> closed + " idle upstream connections closed: the config in force no longer opens them");
        }
    }

    /** Closes the idle connections older than the pool keeps them (called every few seconds). */
    public void closeIdle() {
        pool.closeIdle();
    }

    /**
     * Closes the pooled upstream connections (at shutdown, once no request is in flight); a connection still in use
     * closes when its answer ends.
     */
    public void close() {
        pool.closeAll();
    }
}

package grid.gateway.app.http;

import grid.gateway.app.access.ShutdownCut;
import grid.gateway.app.listen.CloseWhenAsked;
import io.helidon.http.HeaderValues;
import io.helidon.webserver.CloseConnectionException;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The client requests the gateway is handling now, for the in-flight gauge and for a graceful shutdown.
 *
 * <p>Helidon runs each request on its connection's virtual thread, so a request in flight is a thread inside this
 * filter. Once {@link #drain()} is called, every request that ends closes its connection after its answer (Helidon's
 * own stop only interrupts connections idle at the moment it starts, so a kept-alive connection whose answer ends
 * later would otherwise hold the stop until its grace runs out). {@link #cut} interrupts the threads still in a
 * request, for those not relaying an answer (the relay's own cut closes the answers being copied: an interrupt does
 * not unblock a blocked socket read).
 *
 * <p>Before that, during the shutdown delay, {@link #closeConnections()} makes every answer carry
 * {@code Connection: close}: the request is served, and its client opens its next connection, which the load
 * balancer sends to another replica once it has seen this one turn not ready.
 *
 * <p>Thread-safe: a concurrent set of threads and volatile flags.
 */
public final class InFlightRequests implements Filter {
    /** The shutdown's lines ({@code grid.gateway.shutdown}, as the listener stops' are). */
    private static final System.Logger SHUTDOWN_LOG = System.getLogger("grid.gateway.shutdown");

    /** Each request's thread, and the mark its access line reads if the shutdown cuts it. */
    private final Map<Thread, ShutdownCut> inRequest = new ConcurrentHashMap<>();

    private final AtomicLong finishedWhileDraining = new AtomicLong();
    private volatile boolean closing;
    private volatile boolean draining;

    /** No request in flight, not draining. */
    public InFlightRequests() {}

    @Override
    public void filter(FilterChain chain, RoutingRequest req, RoutingResponse res) {
        Thread thread = Thread.currentThread();
        ShutdownCut mark = new ShutdownCut();
        ShutdownCut.CURRENT.set(mark);
        inRequest.put(thread, mark);
        if (closing) {
            res.header(HeaderValues.CONNECTION_CLOSE);
        }
        try {
            chain.proceed();
        } finally {
            inRequest.remove(thread);
            ShutdownCut.CURRENT.remove();
        }
        if (draining) {
            finishedWhileDraining.incrementAndGet();
            // The answer is complete; closing the connection now lets the stopping listener finish.
            throw new CloseConnectionException("the gateway is shutting down");
        }
        // Either side's Connection: close ends the connection here, the shutdown delay's answers included.
        CloseWhenAsked.closeIfAsked(req, res);
    }

    /** Requests being handled now. */
    public int count() {
        return inRequest.size();
    }

    /** From now on each answer says {@code Connection: close}, and its connection is closed after it. */
    public void closeConnections() {
        closing = true;
    }

    /** From now on each request closes its connection when its answer is complete. */
    public void drain() {
        closing = true;
        draining = true;
    }

    /** Requests that completed after {@link #drain()}. */
    public long finishedWhileDraining() {
        return finishedWhileDraining.get();
    }

    /**
     * Cuts every request still in flight: marks each as cut ({@link ShutdownCut}, for its access line), runs
     * {@code first} (the relay's cut of the answers being copied, which ends their requests at once), then interrupts
     * each request's thread; returns how many were marked.
     */
    public int cut(Runnable first) {
        Map<Thread, ShutdownCut> requests = Map.copyOf(inRequest);
        // Marked before anything ends them: a request's access line is written as soon as its relay fails.
        requests.values().forEach(ShutdownCut::mark);
        first.run();
        requests.keySet().forEach(Thread::interrupt);
        int cut = requests.size();
        if (cut > 0) {
            int count = cut;
            SHUTDOWN_LOG.log(
                    System.Logger.Level.WARNING,
                    () -> count + " requests still in flight at the shutdown grace deadline"
                            + " (server.shutdown_grace_ms): cut; their access lines end shutdown_cut");
        }
        return cut;
    }
}

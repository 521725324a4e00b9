package grid.gateway.app.http;

import grid.gateway.app.listen.CloseWhenAsked;
import io.helidon.http.HeaderValues;
import io.helidon.webserver.CloseConnectionException;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The client requests the gateway is handling now, for the in-flight gauge and for a graceful shutdown.
 *
 * <p>Helidon runs each request on its connection's virtual thread, so a request in flight is a thread inside this
 * filter. Once {@link #drain()} is called, every request that ends closes its connection after its answer (Helidon's
 * own stop only interrupts connections idle at the moment it starts, so a kept-alive connection whose answer ends
 * later would otherwise hold the stop until its grace runs out). {@link #cut()} interrupts the threads still in a
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
    private final Set<Thread> inRequest = ConcurrentHashMap.newKeySet();
    private final AtomicLong finishedWhileDraining = new AtomicLong();
    private volatile boolean closing;
    private volatile boolean draining;

    /** No request in flight, not draining. */
    public InFlightRequests() {}

    @Override
    public void filter(FilterChain chain, RoutingRequest req, RoutingResponse res) {
        Thread thread = Thread.currentThread();
        inRequest.add(thread);
        if (closing) {
            res.header(HeaderValues.CONNECTION_CLOSE);
        }
        try {
            chain.proceed();
        } finally {
            inRequest.remove(thread);
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

    /** Interrupts every request still in flight; returns how many were cut. */
    public int cut() {
        int cut = 0;
        for (Thread thread : Set.copyOf(inRequest)) {
            thread.interrupt();
            cut++;
        }
        return cut;
    }
}

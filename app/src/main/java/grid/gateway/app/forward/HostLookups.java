package grid.gateway.app.forward;

import static java.util.Objects.requireNonNull;

import io.helidon.webclient.api.DnsAddressLookup;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * Resolves cluster hosts within what is left of a connect timeout. The JDK's lookup cannot be interrupted and waits as
 * long as the system resolver does (its timeout × attempts × servers: ten seconds and more for a DNS server that does
 * not answer), so a request would wait past {@code connect_timeout_ms} before its connect even began. A name is looked
 * up on a virtual thread of its own, and the caller waits for it until its deadline, then fails as a connect does (the
 * next candidate is tried). A lookup still running is shared by every caller that asks for the same name, so a
 * resolver that hangs holds one thread per name, not one per request; once it ends the next caller looks up afresh
 * (the JDK's own cache still applies). An IP literal involves no resolver and is read on the caller's thread.
 *
 * <p>Thread-safe.
 */
final class HostLookups {
    private final Function<String, InetAddress> resolver;
    private final ConcurrentHashMap<String, CompletableFuture<InetAddress>> running = new ConcurrentHashMap<>();

    /**
     * Lookups by {@code resolver}, which answers an address or throws {@link IllegalArgumentException} for a name
     * that does not resolve.
     */
    HostLookups(Function<String, InetAddress> resolver) {
        this.resolver = requireNonNull(resolver, "resolver");
    }

    /** Lookups by {@link HostKeepingResolver}, the system's resolver underneath. */
    static HostLookups system() {
        return new HostLookups(
                host -> HostKeepingResolver.INSTANCE.resolveAddress(host, DnsAddressLookup.defaultLookup()));
    }

    /** The address of {@code host}, within {@code timeoutNanos}. */
    InetAddress resolve(String host, long timeoutNanos) throws IOException {
        if (literal(host)) {
            try {
                return resolver.apply(host);
            } catch (IllegalArgumentException unknown) {
                throw new UnknownHostException(host);
            }
        }
        CompletableFuture<InetAddress> mine = new CompletableFuture<>();
        CompletableFuture<InetAddress> lookup = running.putIfAbsent(host, mine);
        if (lookup == null) {
            lookup = mine;
            // Started only once it is in the map, so that its removal at the end always finds it.
            Thread.ofVirtual().name("resolve " + host).start(() -> lookUp(host, mine));
        }
        try {
            return lookup.get(Math.max(0, timeoutNanos), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new SocketTimeoutException("looking up " + host + " took longer than the connect timeout");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IllegalArgumentException) {
                throw new UnknownHostException(host);
            }
            throw new IOException("looking up " + host + " failed", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("looking up " + host);
        }
    }

    /** Lookups running now (for tests). */
    int running() {
        return running.size();
    }

    private void lookUp(String host, CompletableFuture<InetAddress> lookup) {
        InetAddress address = null;
        Throwable failure = null;
        try {
            address = resolver.apply(host);
        } catch (RuntimeException | Error e) {
            // Whatever ends the lookup ends it for its waiters and frees the name for the next one.
            failure = e;
        }
        // Out of the map before its answer is given: a caller that has the answer and asks again looks up afresh.
        running.remove(host, lookup);
        if (failure == null) {
            lookup.complete(address);
        } else {
            lookup.completeExceptionally(failure);
        }
    }

    /** An IPv4 or IPv6 literal: digits and dots, or a colon anywhere. */
    private static boolean literal(String host) {
        if (host.indexOf(':') >= 0) {
            return true;
        }
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            if (c != '.' && (c < '0' || c > '9')) {
                return false;
            }
        }
        return !host.isEmpty();
    }
}

package grid.gateway.app.forward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A name's lookup ends within the connect timeout, whatever the resolver does, and a hanging one is shared. */
class HostLookupsTest {
    private static final long SHORT = TimeUnit.MILLISECONDS.toNanos(50);

    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicInteger calls = new AtomicInteger();
    /** A permit each time {@link #held} is entered. */
    private final Semaphore entered = new Semaphore(0);

    private final ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor();

    /** A resolver that answers the loopback address once {@link #release} opens, counting its calls. */
    private final Function<String, InetAddress> held = host -> {
        calls.incrementAndGet();
        entered.release();
        try {
            release.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return InetAddress.getLoopbackAddress();
    };

    @AfterEach
    void stop() {
        release.countDown();
        watchdog.shutdownNow();
    }

    @Test
    void resolverThatDoesNotAnswer_lookupEndsAtTheTimeout_asATimeout() {
        HostLookups lookups = new HostLookups(held);

        assertThatThrownBy(() -> lookups.resolve("engines.example", SHORT))
                .isInstanceOf(SocketTimeoutException.class)
                .hasMessageContaining("engines.example");
    }

    @Test
    void requestsWhileALookupHangs_shareIt_oneResolverCallPerName() throws Exception {
        HostLookups lookups = new HostLookups(held);

        for (int i = 0; i < 5; i++) {
            assertThatThrownBy(() -> lookups.resolve("engines.example", SHORT))
                    .isInstanceOf(SocketTimeoutException.class);
        }
        assertThatThrownBy(() -> lookups.resolve("other.example", SHORT)).isInstanceOf(SocketTimeoutException.class);

        assertThat(entered.tryAcquire(2, 10, TimeUnit.SECONDS)).isTrue();
        assertThat(calls).as("one lookup a name while it hangs").hasValue(2);
        assertThat(lookups.running()).isEqualTo(2);
    }

    @Test
    void lookupThatEnded_nextRequestLooksUpAfresh() throws Exception {
        HostLookups lookups = new HostLookups(host -> {
            calls.incrementAndGet();
            return InetAddress.getLoopbackAddress();
        });

        InetAddress first = lookups.resolve("engines.example", TimeUnit.SECONDS.toNanos(10));
        assertThat(lookups.running()).as("out of the map before its answer").isZero();
        InetAddress second = lookups.resolve("engines.example", TimeUnit.SECONDS.toNanos(10));

        assertThat(first).isEqualTo(InetAddress.getLoopbackAddress());
        assertThat(second).isEqualTo(first);
        assertThat(calls)
                .as("an ended lookup is not kept: a changed address is seen")
                .hasValue(2);
    }

    @Test
    void resolverThatFailsWithAnError_failsThatLookupOnly_theNameIsLookedUpAgain() throws Exception {
        HostLookups lookups = new HostLookups(host -> {
            if (calls.incrementAndGet() == 1) {
                throw new StackOverflowError("resolver broke");
            }
            return InetAddress.getLoopbackAddress();
        });

        assertThatThrownBy(() -> lookups.resolve("engines.example", TimeUnit.SECONDS.toNanos(10)))
                .isInstanceOf(IOException.class)
                .hasCauseInstanceOf(StackOverflowError.class);
        assertThat(lookups.resolve("engines.example", TimeUnit.SECONDS.toNanos(10)))
                .isEqualTo(InetAddress.getLoopbackAddress());
        assertThat(calls).hasValue(2);
    }

    @Test
    void nameThatDoesNotResolve_unknownHost() {
        HostLookups lookups = new HostLookups(host -> {
            throw new IllegalArgumentException("cannot resolve " + host);
        });

        assertThatThrownBy(() -> lookups.resolve("nowhere.example", TimeUnit.SECONDS.toNanos(10)))
                .isInstanceOf(UnknownHostException.class)
                .hasMessage("nowhere.example");
    }

    @Test
    void ipLiteral_readWithoutALookupThread() throws Exception {
        HostLookups lookups = new HostLookups(host -> {
            calls.incrementAndGet();
            assertThat(Thread.currentThread().getName()).doesNotStartWith("resolve ");
            return InetAddress.getLoopbackAddress();
        });

        lookups.resolve("127.0.0.1", 0);
        lookups.resolve("::1", 0);

        assertThat(calls).hasValue(2);
        assertThat(lookups.running()).isZero();
    }

    @Test
    void connector_resolverThatDoesNotAnswer_connectFailsAtItsTimeout() throws IOException {
        try (ServerSocket engine = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Connector connector = new Connector(Duration.ofMillis(50), watchdog, new HostLookups(held));
            Origin origin = Origin.of(java.net.URI.create("http://engines.example:" + engine.getLocalPort()), null);

            assertThatThrownBy(() -> connector.open(origin)).isInstanceOf(SocketTimeoutException.class);
        }
    }
}

package grid.gateway.app.trace;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.net.spi.InetAddressResolver;
import java.net.spi.InetAddressResolverProvider;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * The test JVM's resolver (installed through {@code META-INF/services}): a name under {@value #SUFFIX} is looked up
 * by a resolver that does not answer until {@link #release} (then it fails the lookup); every other name and address
 * goes to the JDK's own resolver unchanged. It stands for a DNS server that takes no query, whose lookups the JDK
 * cannot interrupt, on every path that resolves through {@link InetAddress}, the JDK's HTTP client included.
 */
public final class NeverAnsweringResolver extends InetAddressResolverProvider {
    /** Names that never resolve while the latch holds. */
    static final String SUFFIX = ".never-answers.invalid";

    private static final AtomicInteger ASKED = new AtomicInteger();
    private static volatile CountDownLatch held = new CountDownLatch(1);

    /** Made by {@link java.util.ServiceLoader}. */
    public NeverAnsweringResolver() {
        // Nothing to set up.
    }

    /** Lookups of a held name asked so far. */
    static int asked() {
        return ASKED.get();
    }

    /** Lets the held lookups end (each fails), so that their threads end with the test. */
    static void release() {
        CountDownLatch was = held;
        held = new CountDownLatch(1);
        was.countDown();
    }

    @Override
    public InetAddressResolver get(Configuration configuration) {
        InetAddressResolver builtin = configuration.builtinResolver();
        return new InetAddressResolver() {
            @Override
            public Stream<InetAddress> lookupByName(String host, LookupPolicy policy) throws UnknownHostException {
                if (!host.endsWith(SUFFIX)) {
                    return builtin.lookupByName(host, policy);
                }
                ASKED.incrementAndGet();
                CountDownLatch latch = held;
                try {
                    latch.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                throw new UnknownHostException(host);
            }

            @Override
            public String lookupByAddress(byte[] address) throws UnknownHostException {
                return builtin.lookupByAddress(address);
            }
        };
    }

    @Override
    public String name() {
        return "never-answering test resolver";
    }
}

package grid.gateway.app.http;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Test fixture: a generated mix's trials asked by a few clients at once, each on a virtual thread of its own, client
 * {@code c} of {@code n} asking trials {@code c}, {@code c + n}, {@code c + 2n}… in order, so that a seed gives every
 * client the same trials in the same order.
 */
final class ClientsAtOnce {
    private ClientsAtOnce() {}

    /** Asks one trial; what its client got. */
    @FunctionalInterface
    interface Ask<T, G> {
        G ask(T trial) throws Exception;
    }

    /**
     * What each trial's client got, by the trial's key; fails if a client throws or the clients are not done within
     * {@code bound} each.
     */
    static <T, K, G> Map<K, G> ask(List<T> all, int clients, Function<T, K> key, Ask<T, G> ask, Duration bound)
            throws Exception {
        Map<K, G> got = new ConcurrentHashMap<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int client = c;
                done.add(threads.submit(() -> {
                    for (int i = client; i < all.size(); i += clients) {
                        T trial = all.get(i);
                        got.put(key.apply(trial), ask.ask(trial));
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(bound.toMillis(), TimeUnit.MILLISECONDS);
            }
        }
        return got;
    }
}

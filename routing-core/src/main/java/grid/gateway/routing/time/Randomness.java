package grid.gateway.routing.time;

import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * The production random source: each call goes to {@link ThreadLocalRandom#current()}, which is safe on virtual
 * threads and free of contention. Components take a {@link RandomGenerator} so tests can pass a scripted or seeded
 * one instead.
 *
 * <p>Thread-safe and stateless.
 */
public final class Randomness implements RandomGenerator {
    /** The one instance; it holds no state. */
    public static final Randomness INSTANCE = new Randomness();

    private Randomness() {}

    @Override
    public long nextLong() {
        return ThreadLocalRandom.current().nextLong();
    }

    @Override
    public double nextDouble() {
        return ThreadLocalRandom.current().nextDouble();
    }

    @Override
    public int nextInt(int bound) {
        return ThreadLocalRandom.current().nextInt(bound);
    }
}

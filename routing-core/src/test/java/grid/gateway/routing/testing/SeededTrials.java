package grid.gateway.routing.testing;

import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Test fixture for property tests: runs a check on many generated samples from one fixed seed, so a run is
 * deterministic and a failure names the trial and seed that reproduce it.
 */
public final class SeededTrials {
    private SeededTrials() {}

    /** Checks {@code tries} samples drawn by {@code generator} from a random source seeded with {@code seed}. */
    public static <T> void forAll(long seed, int tries, Function<SplittableRandom, T> generator, Consumer<T> check) {
        SplittableRandom random = new SplittableRandom(seed);
        for (int trial = 0; trial < tries; trial++) {
            T sample = generator.apply(random);
            try {
                check.accept(sample);
            } catch (AssertionError | RuntimeException failure) {
                throw new AssertionError("trial " + trial + " of seed " + seed + " failed on: " + sample, failure);
            }
        }
    }
}

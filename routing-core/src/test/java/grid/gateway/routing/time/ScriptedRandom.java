package grid.gateway.routing.time;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.random.RandomGenerator;

/**
 * Test fixture: a random source that returns listed values. {@code nextDouble()} returns the scripted doubles in
 * order, then {@code fallbackDouble}; {@code nextInt(bound)} returns the scripted ints, then 0. With the default
 * fallback of 0.5 nothing explores (exploration needs a draw under 0.02), so a test scripts 0.019 to explore and
 * 0.021 not to.
 *
 * <p>Not thread-safe; one per test.
 */
public final class ScriptedRandom implements RandomGenerator {
    private final Deque<Double> doubles = new ArrayDeque<>();
    private final Deque<Integer> ints = new ArrayDeque<>();
    private final double fallbackDouble;

    private ScriptedRandom(double fallbackDouble) {
        this.fallbackDouble = fallbackDouble;
    }

    /** A source whose doubles are 0.5 unless scripted: nothing explores. */
    public static ScriptedRandom neverExploring() {
        return new ScriptedRandom(0.5);
    }

    /** Appends doubles to return next. */
    public ScriptedRandom scriptDoubles(double... values) {
        for (double value : values) {
            doubles.add(value);
        }
        return this;
    }

    /** Appends ints to return next from {@link #nextInt(int)}. */
    public ScriptedRandom scriptInts(int... values) {
        for (int value : values) {
            ints.add(value);
        }
        return this;
    }

    @Override
    public double nextDouble() {
        Double value = doubles.poll();
        return value == null ? fallbackDouble : value;
    }

    @Override
    public int nextInt(int bound) {
        Integer value = ints.poll();
        if (value == null) {
            return 0;
        }
        if (value < 0 || value >= bound) {
            throw new IllegalStateException("scripted int " + value + " is outside [0, " + bound + ")");
        }
        return value;
    }

    @Override
    public long nextLong() {
        throw new UnsupportedOperationException("script doubles or ints instead");
    }
}

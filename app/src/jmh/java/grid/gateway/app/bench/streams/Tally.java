package grid.gateway.app.bench.streams;

import java.util.concurrent.atomic.LongAdder;

/**
 * What every stream of one run saw, counted across threads: events, and streams by how they ended.
 *
 * <p>Thread-safe.
 */
final class Tally {
    private final LongAdder events = new LongAdder();
    private final LongAdder[] endings = new LongAdder[SseExchange.Ending.values().length];

    Tally() {
        for (int i = 0; i < endings.length; i++) {
            endings[i] = new LongAdder();
        }
    }

    void event() {
        events.increment();
    }

    void ended(SseExchange.Ending ending) {
        endings[ending.ordinal()].increment();
    }

    long events() {
        return events.sum();
    }

    long count(SseExchange.Ending ending) {
        return endings[ending.ordinal()].sum();
    }
}

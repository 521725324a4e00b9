package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import java.time.InstantSource;

/**
 * What every API of the simulator works with: the simulated engine, the served models, the id source and the wall
 * clock for {@code created} timestamps.
 *
 * <p>Immutable; its parts are thread-safe.
 *
 * @param engine the simulated engine
 * @param catalog the served models
 * @param ids the id source
 * @param wallClock the source of {@code created} timestamps
 */
record ApiParts(SimulatedEngine engine, ModelCatalog catalog, Ids ids, InstantSource wallClock) {
    ApiParts {
        requireNonNull(engine, "engine");
        requireNonNull(catalog, "catalog");
        requireNonNull(ids, "ids");
        requireNonNull(wallClock, "wallClock");
    }

    /** Seconds since the epoch, as {@code created} and {@code created_at} carry them. */
    long now() {
        return wallClock.instant().getEpochSecond();
    }
}

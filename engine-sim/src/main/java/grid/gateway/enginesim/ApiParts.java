package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import java.time.InstantSource;

/**
 * What every API of the simulator works with: the simulated engine, the served models, the id source, the wall
 * clock for {@code created} timestamps, and the surface settings (which usage fields, which additions).
 *
 * <p>Immutable; its parts are thread-safe.
 *
 * @param engine the simulated engine
 * @param catalog the served models
 * @param ids the id source
 * @param wallClock the source of {@code created} timestamps
 * @param api what the API surface does where engines differ
 */
record ApiParts(SimulatedEngine engine, ModelCatalog catalog, Ids ids, InstantSource wallClock, ApiSurface api) {
    /** The {@code system_fingerprint} vLLM writes into Chat Completions and Completions answers. */
    static final String FINGERPRINT = "vllm-0.0.0+engine.sim-00000000";

    ApiParts {
        requireNonNull(engine, "engine");
        requireNonNull(catalog, "catalog");
        requireNonNull(ids, "ids");
        requireNonNull(wallClock, "wallClock");
        requireNonNull(api, "api");
    }

    /** Seconds since the epoch, as {@code created} and {@code created_at} carry them. */
    long now() {
        return wallClock.instant().getEpochSecond();
    }
}

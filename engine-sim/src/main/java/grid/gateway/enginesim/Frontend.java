package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * How the API server in front of the simulated engine behaves under a burst, as recorded from vLLM
 * ({@code testdata/vllm/load_burst_200.json}): with 200 requests at once its API-server process was the bottleneck,
 * {@code /metrics} answered nothing for about 8 s, and {@code num_requests_waiting} (32 at most, 4 running) counted
 * only what had reached the engine, not the requests still waiting in the server.
 *
 * <pre>
 *   requests in the server ≥ stallBacklog  ─▶  a /metrics scrape is held {@code stall} (pacer time), then answered
 *   waiting reported = min(waiting, engineIntake − running)            the rest wait unseen in the API server
 * </pre>
 *
 * <p>Immutable. Time goes through the simulator's {@link Pacer}, so a test decides what a stall costs.
 *
 * @param engineIntake the most requests the engine holds, running and waiting, that {@code /metrics} counts;
 *     {@link Integer#MAX_VALUE} for all of them
 * @param stallBacklog requests in the server (waiting and running) at or above which a scrape stalls;
 *     {@link Integer#MAX_VALUE} for never
 * @param stall how long a stalled scrape is held before it is answered
 */
public record Frontend(int engineIntake, int stallBacklog, Duration stall) {
    /** No limit and no stall: every waiting request is counted, every scrape answered at once. */
    public static final Frontend NONE = new Frontend(Integer.MAX_VALUE, Integer.MAX_VALUE, Duration.ZERO);

    /** Validates. */
    public Frontend {
        requireNonNull(stall, "stall");
        if (engineIntake <= 0 || stallBacklog <= 0 || stall.isNegative()) {
            throw new IllegalArgumentException("frontend: intake " + engineIntake + ", stall at " + stallBacklog
                    + ", stall " + stall + " (expected: > 0, > 0, >= 0)");
        }
    }

    /**
     * The recorded server: 36 requests in the engine (4 running and 32 waiting, the most it showed), and a scrape
     * stalled 8 s once 100 requests wait (the recording stalled with 200 and not with 40).
     */
    public static Frontend asRecorded() {
        return new Frontend(36, 100, Duration.ofSeconds(8));
    }

    /** Whether a scrape stalls with {@code inServer} requests waiting or running. */
    boolean stalls(int inServer) {
        return inServer >= stallBacklog && stall.isPositive();
    }

    /** What {@code num_requests_waiting} shows of {@code waiting} requests while {@code running} run. */
    int visibleWaiting(int waiting, int running) {
        return Math.min(waiting, Math.max(0, engineIntake - running));
    }
}

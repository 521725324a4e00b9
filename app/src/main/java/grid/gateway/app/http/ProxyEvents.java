package grid.gateway.app.http;

import grid.gateway.app.observe.InboundRefusal;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.keyer.NoKeysReason;
import grid.gateway.routing.select.AffinityOutcome;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What the proxy reports about each request, for metrics (SPEC §10). Every method has a no-op default.
 *
 * <p>Implementations must be thread-safe and must not block.
 */
public interface ProxyEvents {
    /** A body got no keys. */
    default void noKeys(NoKeysReason reason) {}

    /** A client's request was refused before it was forwarded. */
    default void refused(InboundRefusal reason) {}

    /** A cluster answered with {@code status} after {@code toHeaders}. */
    default void upstreamAnswered(ClusterId cluster, int status, Duration toHeaders) {}

    /** Forwarding to a cluster failed; {@code kind} is {@code connect}, {@code timeout} or {@code broken}. */
    default void upstreamFailed(ClusterId cluster, String kind) {}

    /** Predicted ({@code run × 64}) and engine-reported cached prompt tokens of one answered request. */
    default void cachedTokens(
            ClusterId cluster, Optional<AffinityOutcome> outcome, long predicted, OptionalLong reported) {}
}

package grid.gateway.app.observe;

import grid.gateway.app.forward.LeftoverFound;
import grid.gateway.app.forward.RetryReason;
import grid.gateway.app.forward.UpstreamFailure;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.keyer.NoKeysReason;
import grid.gateway.routing.select.AffinityOutcome;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What the proxy reports about each request, for metrics (docs/design.md §10); {@link GatewayMetrics} is the implementation.
 *
 * <p>Implementations must be thread-safe and must not block.
 */
public interface ProxyEvents {
    /** A body got no keys. */
    void noKeys(NoKeysReason reason);

    /** A client's request was refused before it was forwarded. */
    void refused(InboundRefusal reason);

    /** A cluster answered with {@code status} after {@code toHeaders}. */
    void upstreamAnswered(ClusterId cluster, int status, Duration toHeaders);

    /** Forwarding to a cluster got no answer the client could be given. */
    void upstreamFailed(ClusterId cluster, UpstreamFailure failure);

    /** A relayed answer's client took no byte for {@code server.send_timeout_ms}: its connection was closed. */
    void sendTimedOut();

    /** A request was sent to a cluster a second time, for {@code reason}. */
    void upstreamRetried(ClusterId cluster, RetryReason reason);

    /** A connection to a cluster was closed because bytes the engine wrote beyond its answers were found there. */
    void upstreamLeftover(ClusterId cluster, LeftoverFound found);

    /** Predicted ({@code run × 64}) and engine-reported cached prompt tokens of one answered request. */
    void cachedTokens(ClusterId cluster, Optional<AffinityOutcome> outcome, long predicted, OptionalLong reported);
}

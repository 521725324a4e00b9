/**
 * What the gateway tells its operator (docs/design.md §10): the meters of {@link grid.gateway.app.observe.GatewayMeter},
 * recorded by {@link grid.gateway.app.observe.GatewayMetrics}; the cached prompt tokens an engine reports in an
 * answer's usage; and the admin listener's {@code /metrics} and {@code /health} endpoints.
 */
@NullMarked
package grid.gateway.app.observe;

import org.jspecify.annotations.NullMarked;

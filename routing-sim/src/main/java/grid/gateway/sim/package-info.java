/**
 * The routing-quality simulator (docs/routing-sim.md): seeded synthetic traces replayed through the real routing core
 * ({@code PromptKeyer}, {@code SiteRouter}, {@code PrefixMemory}, {@code QueueDepthWindow}) against a simulated grid
 * of engine clusters, in simulated time, next to cache-blind and oracle policies.
 */
@NullMarked
package grid.gateway.sim;

import org.jspecify.annotations.NullMarked;

package grid.gateway.sim;

import java.util.List;
import java.util.random.RandomGenerator;

/**
 * The cache-blind baselines that need no gateway state: round robin and random, and the oracle, which needs none
 * either because it reads the simulated clusters directly.
 *
 * <p>Stateless itself; the policies it makes are not thread-safe.
 */
final class BlindPolicies {
    private BlindPolicies() {}

    static Policy roundRobin() {
        return new Policy() {
            private int next;

            @Override
            public String name() {
                return PolicyKind.ROUND_ROBIN.label();
            }

            @Override
            public void choose(Flight flight, List<SimCluster> clusters) {
                flight.cluster = next;
                next = (next + 1) % clusters.size();
            }
        };
    }

    static Policy random(RandomGenerator random) {
        return new Policy() {
            @Override
            public String name() {
                return PolicyKind.RANDOM.label();
            }

            @Override
            public void choose(Flight flight, List<SimCluster> clusters) {
                flight.cluster = random.nextInt(clusters.size());
            }
        };
    }

    /**
     * The oracle: for each cluster, {@link SimCluster#predictedTtft} from true cache contents, true queues and known
     * end times; the least wins, ties at random. It is myopic (it does not plan for later requests), so it bounds what
     * a router could see, not what a planner could do.
     */
    static Policy oracle(RandomGenerator random, SimClock clock) {
        return new Policy() {
            @Override
            public String name() {
                return PolicyKind.ORACLE.label();
            }

            @Override
            public void choose(Flight flight, List<SimCluster> clusters) {
                double best = Double.POSITIVE_INFINITY;
                int ties = 0;
                for (int i = 0; i < clusters.size(); i++) {
                    double ttft = clusters.get(i).predictedTtft(flight.turn, clock.seconds());
                    if (ttft < best - 1e-12) {
                        best = ttft;
                        flight.cluster = i;
                        ties = 1;
                    } else if (Math.abs(ttft - best) <= 1e-12 && random.nextInt(++ties) == 0) {
                        flight.cluster = i;
                    }
                }
                SimCluster chosen = clusters.get(flight.cluster);
                flight.expectedUncached = flight.turn.promptTokens() - chosen.cachedTokens(flight.turn);
            }
        };
    }
}

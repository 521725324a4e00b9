package grid.gateway.sim;

import java.util.List;
import java.util.random.RandomGenerator;

/**
 * R gateway replicas behind a random spread (a Kubernetes Service): each request, and each retry, goes to a
 * uniformly random replica, which routes it with its own state (its own router, prefix memory and load window, so
 * it remembers only what it routed). Every replica scrapes every cluster at every poll.
 *
 * <p>Not thread-safe; one per run.
 */
final class ReplicaSpread implements Policy {
    private final List<Policy> replicas;
    private final RandomGenerator spread;

    ReplicaSpread(List<Policy> replicas, RandomGenerator spread) {
        if (replicas.isEmpty()) {
            throw new IllegalArgumentException("no replicas");
        }
        this.replicas = List.copyOf(replicas);
        this.spread = spread;
    }

    @Override
    public String name() {
        return replicas.getFirst().name();
    }

    @Override
    public void choose(Flight flight, List<SimCluster> clusters) {
        flight.replica = spread.nextInt(replicas.size());
        replicas.get(flight.replica).choose(flight, clusters);
    }

    @Override
    public void scraped(int cluster, EngineSeries series) {
        for (Policy replica : replicas) {
            replica.scraped(cluster, series);
        }
    }

    @Override
    public void answered(Flight flight, int status) {
        replicas.get(flight.replica).answered(flight, status);
    }

    @Override
    public void finished(Flight flight) {
        replicas.get(flight.replica).finished(flight);
    }
}

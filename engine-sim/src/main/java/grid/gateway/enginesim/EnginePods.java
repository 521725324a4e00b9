package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;

/**
 * Several simulated engines standing for the pods of one backend cluster, as a headless Service's pods: one pod per
 * address, all on one port (the first pod's, when the settings ask for any free port), each with its own queue,
 * prefix cache and {@code /metrics}. A gateway scrapes them through {@code metrics_urls} or, with a name that
 * resolves to every address, through {@code metrics_dns}; on Linux every 127.x.y.z address is loopback and can be
 * bound.
 *
 * <p>Thread-safe: each pod is.
 */
public final class EnginePods implements AutoCloseable {
    private final List<EngineSimulator> pods;

    private EnginePods(List<EngineSimulator> pods) {
        this.pods = List.copyOf(pods);
    }

    /**
     * Starts one pod of {@code settings} on each of {@code hosts}, named {@code <name>-<i>}, all on one port.
     *
     * @throws IllegalStateException if a pod cannot bind (the pods already started are closed)
     */
    public static EnginePods start(EngineSettings settings, List<String> hosts) {
        requireNonNull(settings, "settings");
        if (hosts.isEmpty()) {
            throw new IllegalArgumentException("hosts: empty (expected: one address a pod)");
        }
        List<EngineSimulator> started = new ArrayList<>();
        try {
            int port = settings.port();
            for (int i = 0; i < hosts.size(); i++) {
                EngineSimulator pod =
                        EngineSimulator.start(settings.pod(hosts.get(i), port, settings.name() + "-" + i));
                started.add(pod);
                port = pod.port();
            }
        } catch (RuntimeException failed) {
            started.forEach(EngineSimulator::close);
            throw failed;
        }
        return new EnginePods(started);
    }

    /** The pods, in the order of their hosts. */
    public List<EngineSimulator> pods() {
        return pods;
    }

    /** The pod at {@code index}. */
    public EngineSimulator pod(int index) {
        return pods.get(index);
    }

    /** The port every pod listens on. */
    public int port() {
        return pods.getFirst().port();
    }

    /** Each pod's {@code /metrics} URL, for {@code metrics_urls}. */
    public List<String> metricsUrls() {
        return pods.stream().map(pod -> pod.url() + "/metrics").toList();
    }

    @Override
    public void close() {
        pods.forEach(EngineSimulator::close);
    }
}

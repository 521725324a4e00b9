package grid.gateway.app.load;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.MetricsSource;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.time.ManualClock;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.Phaser;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The pods of a round: listed URLs as written; a {@code metrics_dns} name resolved at the first round, again once
 * {@code dns_refresh_secs} passed, its last known pods kept (and the failure counted) when it fails. The resolver
 * and the clock are fakes, so every resolution is decided by the test.
 */
class PodTargetsTest {
    private static final ClusterId A = new ClusterId(new SiteName("east"), "a");
    private static final URI NAME = URI.create("http://pods.engines.svc:8000/metrics");

    private final ManualClock clock = new ManualClock();
    /** What the name resolves to now; empty: it fails. */
    private final List<String> addresses = new ArrayList<>(List.of("10.0.0.1", "10.0.0.2"));

    private final AtomicInteger resolutions = new AtomicInteger();
    private final List<ClusterId> failures = new ArrayList<>();
    private final PodTargets targets = new PodTargets(
            host -> {
                assertThat(host).isEqualTo("pods.engines.svc");
                resolutions.incrementAndGet();
                if (addresses.isEmpty()) {
                    throw new UnknownHostException(host);
                }
                List<InetAddress> found = new ArrayList<>();
                for (String address : addresses) {
                    found.add(InetAddress.getByName(address)); // a literal: no lookup
                }
                return found;
            },
            PodTargets.LOOKUP_DEADLINE,
            clock,
            () -> Duration.ofSeconds(30),
            failuresInto(failures));

    /** Events that note each cluster whose name failed to resolve in {@code failed}. */
    private static LoadEvents failuresInto(List<ClusterId> failed) {
        return new LoadEvents() {
            @Override
            public void dnsFailed(ClusterId cluster) {
                failed.add(cluster);
            }
        };
    }

    private static BackendCluster cluster(MetricsSource metrics) {
        return new BackendCluster(
                A, URI.create("http://engines.svc:8000"), Set.of("m"), metrics, OptionalInt.empty(), false);
    }

    private static List<URI> uris(String... texts) {
        return List.of(texts).stream().map(URI::create).toList();
    }

    @Test
    void pods_listedUrls_asWritten() {
        List<URI> listed = uris("http://10.0.0.9:8000/metrics", "http://10.0.0.8:8000/metrics");

        assertThat(targets.pods(cluster(new MetricsSource.Urls(listed)))).isEqualTo(listed);
        assertThat(resolutions).hasValue(0);
    }

    @Test
    void pods_dnsName_everyAddressAtThePortAndPath() {
        assertThat(targets.pods(cluster(new MetricsSource.Dns(NAME))))
                .isEqualTo(uris("http://10.0.0.1:8000/metrics", "http://10.0.0.2:8000/metrics"));
    }

    @Test
    void pods_dnsName_resolvedAgainOnlyOnceTheRefreshPassed() {
        BackendCluster cluster = cluster(new MetricsSource.Dns(NAME));
        targets.pods(cluster);
        addresses.add("10.0.0.3");

        clock.advance(Duration.ofSeconds(29));
        assertThat(targets.pods(cluster)).hasSize(2);
        assertThat(resolutions).hasValue(1);

        clock.advance(Duration.ofSeconds(1));
        assertThat(targets.pods(cluster))
                .isEqualTo(uris(
                        "http://10.0.0.1:8000/metrics",
                        "http://10.0.0.2:8000/metrics",
                        "http://10.0.0.3:8000/metrics"));
        assertThat(resolutions).hasValue(2);
    }

    @Test
    void pods_dnsFailure_keepsTheLastKnownPodsAndCountsIt() {
        BackendCluster cluster = cluster(new MetricsSource.Dns(NAME));
        List<URI> known = targets.pods(cluster);
        addresses.clear();

        clock.advance(Duration.ofSeconds(30));
        assertThat(targets.pods(cluster)).isEqualTo(known);
        assertThat(failures).containsExactly(A);
        clock.advance(Duration.ofSeconds(1));
        assertThat(targets.pods(cluster))
                .as("the next try waits for the refresh")
                .isEqualTo(known);
        assertThat(resolutions).hasValue(2);

        addresses.add("10.0.0.7");
        clock.advance(Duration.ofSeconds(30));
        assertThat(targets.pods(cluster)).isEqualTo(uris("http://10.0.0.7:8000/metrics"));
        assertThat(failures).containsExactly(A);
    }

    @Test
    void pods_nameThatNeverResolved_noPodsAndTriedAgainEveryRound() {
        BackendCluster cluster = cluster(new MetricsSource.Dns(NAME));
        addresses.clear();

        assertThat(targets.pods(cluster)).isEmpty();
        assertThat(targets.pods(cluster)).isEmpty();
        addresses.add("10.0.0.1");
        assertThat(targets.pods(cluster)).isEqualTo(uris("http://10.0.0.1:8000/metrics"));
        assertThat(resolutions).hasValue(3);
        assertThat(failures).containsExactly(A, A);
    }

    @Test
    void pods_ipv6Address_bracketed() {
        addresses.clear();
        addresses.add("fd00::1");

        assertThat(targets.pods(cluster(new MetricsSource.Dns(NAME))))
                .isEqualTo(uris("http://[fd00:0:0:0:0:0:0:1]:8000/metrics"));
    }

    @Test
    void pods_anotherNameAfterAReload_resolvedAtOnce() {
        targets.pods(cluster(new MetricsSource.Dns(NAME)));

        targets.pods(cluster(new MetricsSource.Dns(URI.create("http://pods.engines.svc:9000/metrics"))));

        assertThat(resolutions).hasValue(2);
    }

    @Test
    @Timeout(20)
    void pods_lookupWithoutAnswer_theRoundKeepsTheLastKnownPods_andALaterRoundTakesItsAnswer() throws Exception {
        Phaser answer = new Phaser(1);
        AtomicInteger lookups = new AtomicInteger();
        List<ClusterId> failed = new ArrayList<>();
        PodTargets hanging = new PodTargets(
                host -> {
                    if (lookups.incrementAndGet() > 1) {
                        // A DNS server that does not answer until the test says so.
                        answer.awaitAdvance(0); // uninterruptible, as the JDK's lookup
                    }
                    return List.of(InetAddress.getByName(lookups.get() == 1 ? "10.0.0.1" : "10.0.0.2"));
                },
                Duration.ofMillis(50),
                clock,
                () -> Duration.ofSeconds(30),
                failuresInto(failed));
        BackendCluster cluster = cluster(new MetricsSource.Dns(NAME));
        List<URI> known = hanging.pods(cluster);

        clock.advance(Duration.ofSeconds(30));
        assertThat(hanging.pods(cluster))
                .as("within the deadline, the pods last known")
                .isEqualTo(known);
        assertThat(failed).containsExactly(A);
        clock.advance(Duration.ofSeconds(30));
        assertThat(hanging.pods(cluster))
                .as("a round while that lookup runs neither waits nor starts another")
                .isEqualTo(known);
        assertThat(lookups).hasValue(2);
        assertThat(failed).containsExactly(A);

        answer.arriveAndDeregister();
        hanging.overrunLookup(A).orElseThrow().get(20, TimeUnit.SECONDS);
        assertThat(hanging.pods(cluster))
                .as("the next round, before the refresh is due")
                .isEqualTo(uris("http://10.0.0.2:8000/metrics"));
        assertThat(hanging.overrunLookup(A)).isEmpty();
        assertThat(lookups).hasValue(2);
    }
}

package grid.gateway.app.load;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.config.LoadSettings;
import grid.gateway.app.load.QueueScraper.Outcome;
import grid.gateway.routing.LoadRules;
import grid.gateway.routing.SiteRouter;
import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.grid.MetricsSource;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.load.QueueDepthWindow;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.select.LoadOrder;
import grid.gateway.routing.tag.TagKeyRing;
import grid.gateway.routing.time.ManualClock;
import io.helidon.http.Status;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A cluster of several pods on real loopback sockets: the depth is the sum over the pods, a pod that fails (with no
 * earlier depth to count, {@link QueueScraperSilentPodsTest}) is left
 * out (partly measured, in the census), all failing records nothing, and sent-since-scrape counts from the latest
 * complete round. A {@code metrics_dns} name resolves through a fake resolver.
 */
class QueueScraperPodsTest {
    private static final SiteName EAST = new SiteName("east");
    private static final ClusterId A = new ClusterId(EAST, "a");

    private final FakeEngines engines = new FakeEngines();
    private final ManualClock clock = new ManualClock();
    private final QueueDepthWindow window = new QueueDepthWindow(Duration.ofSeconds(10));
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final Map<ClusterId, PodCensus> censuses = new ConcurrentHashMap<>();
    private final AtomicBoolean dnsWorks = new AtomicBoolean(true);
    private Grid grid = Grid.of(EAST, List.of(cluster(List.of(URI.create("http://127.0.0.1:9/metrics")))));
    private final SiteRouter router = new SiteRouter(
            grid,
            PrefixAffinitySettings.defaults(),
            TagKeyRing.none(),
            QueueScraperTest.parts(clock, window),
            new LoadRules(true, LoadOrder.DEPTH));
    private final QueueScraper scraper = new QueueScraper(() -> grid, LoadSettings::defaults, router, clock, scheduler)
            .events(new LoadEvents() {
                @Override
                public void podsScraped(ClusterId cluster, PodCensus census) {
                    censuses.put(cluster, census);
                }
            })
            .resolver(host -> {
                if (!dnsWorks.get()) {
                    throw new UnknownHostException(host);
                }
                assertThat(host).isEqualTo("pods.test");
                return List.of(InetAddress.getByName("127.0.0.1"));
            });

    @AfterEach
    void stop() {
        scraper.close();
        scheduler.shutdownNow();
        engines.close();
    }

    private static BackendCluster cluster(List<URI> pods) {
        return cluster(new MetricsSource.Urls(pods));
    }

    private static BackendCluster cluster(MetricsSource metrics) {
        return new BackendCluster(
                A, URI.create("http://127.0.0.1:9"), Set.of("demo-model"), metrics, OptionalInt.empty(), false);
    }

    private void threePods() {
        engines.answer("p1", "vllm:num_requests_waiting 3\n");
        engines.answer("p2", "vllm:num_requests_waiting{engine=\"0\"} 4\nvllm:num_requests_waiting{engine=\"1\"} 1\n");
        engines.answer("p3", "vllm:num_requests_waiting 2\n");
        inForce(cluster(List.of(
                URI.create(engines.base("p1") + "/metrics"),
                URI.create(engines.base("p2") + "/metrics"),
                URI.create(engines.base("p3") + "/metrics"))));
    }

    private void inForce(BackendCluster cluster) {
        grid = Grid.of(EAST, List.of(cluster));
        router.reconfigure(
                grid, PrefixAffinitySettings.defaults(), TagKeyRing.none(), new LoadRules(true, LoadOrder.DEPTH));
    }

    private Outcome round() {
        return scraper.pollNow().get(A).join();
    }

    @Test
    void pollNow_everyPodAnswers_theDepthIsTheirSum() {
        threePods();

        assertThat(round()).isEqualTo(Outcome.SAMPLED);

        assertThat(window.worst(A, clock.nanoTime())).isEqualTo(OptionalDouble.of(10));
        assertThat(censuses.get(A)).isEqualTo(new PodCensus(3, 3));
        assertThat(censuses.get(A).partlyMeasured()).isFalse();
        assertThat(engines.requests("p1") + engines.requests("p2") + engines.requests("p3"))
                .isEqualTo(3);
    }

    @Test
    void pollNow_onePodFails_theSumOverTheOthersAndPartlyMeasured() {
        threePods();
        engines.handle(
                "p2", (req, res) -> res.status(Status.SERVICE_UNAVAILABLE_503).send());

        assertThat(round()).isEqualTo(Outcome.PARTLY_SAMPLED);

        assertThat(window.worst(A, clock.nanoTime())).isEqualTo(OptionalDouble.of(5));
        assertThat(censuses.get(A)).isEqualTo(new PodCensus(3, 2));
        assertThat(censuses.get(A).partlyMeasured()).isTrue();
    }

    @Test
    void pollNow_aPodWithoutTheQueueMetric_isLeftOutToo() {
        threePods();
        engines.answer("p3", "vllm:num_requests_running 2\n");

        assertThat(round()).isEqualTo(Outcome.PARTLY_SAMPLED);

        assertThat(window.worst(A, clock.nanoTime())).isEqualTo(OptionalDouble.of(8));
        assertThat(censuses.get(A)).isEqualTo(new PodCensus(3, 2));
    }

    @Test
    void pollNow_everyPodFails_nothingRecordedAndNotPartly() {
        threePods();
        for (String pod : List.of("p1", "p2", "p3")) {
            engines.handle(
                    pod,
                    (req, res) -> res.status(Status.INTERNAL_SERVER_ERROR_500).send());
        }

        assertThat(round()).isEqualTo(Outcome.FAILED);

        assertThat(window.worst(A, clock.nanoTime())).isEmpty();
        assertThat(censuses.get(A)).isEqualTo(new PodCensus(3, 0));
        assertThat(censuses.get(A).partlyMeasured()).isFalse();
    }

    @Test
    void pollNow_sentSinceScrape_countsFromTheLatestCompleteRound() {
        threePods();
        router.newConversation(Set.of());
        router.newConversation(Set.of());
        assertThat(router.inFlightSinceScrape(A)).isEqualTo(2);

        engines.handle(
                "p2", (req, res) -> res.status(Status.SERVICE_UNAVAILABLE_503).send());
        assertThat(round()).isEqualTo(Outcome.PARTLY_SAMPLED);
        assertThat(router.inFlightSinceScrape(A))
                .as("a partly measured round recorded a depth")
                .isZero();

        router.newConversation(Set.of());
        for (String pod : List.of("p1", "p2", "p3")) {
            engines.handle(
                    pod,
                    (req, res) -> res.status(Status.INTERNAL_SERVER_ERROR_500).send());
        }
        assertThat(round()).isEqualTo(Outcome.FAILED);
        assertThat(router.inFlightSinceScrape(A))
                .as("a round that recorded nothing resets nothing")
                .isEqualTo(1);
    }

    @Test
    void pollNow_metricsDns_scrapesEveryAddressAndKeepsThemWhenDnsFails() {
        engines.answer("p1", "vllm:num_requests_waiting 6\n");
        URI base = engines.base("p1");
        inForce(cluster(new MetricsSource.Dns(URI.create("http://pods.test:" + base.getPort() + "/p1/metrics"))));

        assertThat(round()).isEqualTo(Outcome.SAMPLED);
        assertThat(window.worst(A, clock.nanoTime())).isEqualTo(OptionalDouble.of(6));

        dnsWorks.set(false);
        clock.advance(Duration.ofSeconds(31));
        engines.answer("p1", "vllm:num_requests_waiting 9\n");
        assertThat(round()).as("the last known pod is still scraped").isEqualTo(Outcome.SAMPLED);
        assertThat(window.worst(A, clock.nanoTime())).isEqualTo(OptionalDouble.of(9));
    }

    @Test
    void pollNow_metricsDnsNeverResolved_failsWithNoPod() {
        dnsWorks.set(false);
        inForce(cluster(new MetricsSource.Dns(URI.create("http://pods.test:8000/metrics"))));

        assertThat(round()).isEqualTo(Outcome.FAILED);

        assertThat(censuses.get(A)).isEqualTo(new PodCensus(0, 0));
    }
}

package grid.gateway.app.load;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.config.LoadSettings;
import grid.gateway.app.load.QueueScraper.Outcome;
import grid.gateway.routing.LoadRules;
import grid.gateway.routing.SiteRouter;
import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.load.QueueDepthWindow;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.tag.TagKeyRing;
import grid.gateway.routing.time.ManualClock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The queue scraper against the {@code /metrics} page a real vLLM server served ({@code testdata/vllm/
 * metrics_after_probe.txt}), as it served it: content type and all, over a real socket.
 */
class QueueScraperRecordedPageTest {
    private static final SiteName EAST = new SiteName("east");
    private static final ClusterId A = new ClusterId(EAST, "a");
    private static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final FakeEngines engines = new FakeEngines();
    private final ManualClock clock = new ManualClock();
    private final QueueDepthWindow window = new QueueDepthWindow(Duration.ofSeconds(10));
    private final AtomicReference<Grid> grid = new AtomicReference<>();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final SiteRouter router = new SiteRouter(
            Grid.of(EAST, List.of(cluster())),
            PrefixAffinitySettings.defaults(),
            TagKeyRing.none(),
            QueueScraperTest.parts(clock, window));
    private final QueueScraper scraper = new QueueScraper(grid::get, LoadSettings::defaults, router, clock, scheduler);

    @AfterEach
    void stop() {
        scraper.close();
        scheduler.shutdownNow();
        engines.close();
    }

    @Test
    void pollNow_recordedVllmPage_depthRecordedAndCapacityAutoFromCacheConfigInfo() {
        serve(recorded("metrics_after_probe.txt"));

        assertThat(scraper.pollNow().get(A).join()).isEqualTo(Outcome.SAMPLED);

        assertThat(window.worst(A, clock.nanoTime())).isEqualTo(OptionalDouble.of(0.0));
        // num_gpu_blocks="8192" × block_size="128" tokens ÷ 64 tokens an entry; num_cpu_blocks="None" adds nothing.
        assertThat(router.prices(A).capacity()).isEqualTo(OptionalInt.of(16_384));
    }

    @Test
    void pollNow_recordedPageWithTheBurstsDeepestPoll_thatDepthRecorded() {
        // The recorded burst's deepest poll (load_burst_200.json: 32 waiting, 4 running), in the recorded page.
        String page = recorded("metrics_after_probe.txt")
                .replaceFirst("(?m)^(vllm:num_requests_waiting\\{[^}]*}) 0\\.0$", "$1 32.0")
                .replaceFirst("(?m)^(vllm:num_requests_running\\{[^}]*}) 0\\.0$", "$1 4.0");
        serve(page);

        assertThat(scraper.pollNow().get(A).join()).isEqualTo(Outcome.SAMPLED);

        assertThat(window.worst(A, clock.nanoTime())).isEqualTo(OptionalDouble.of(32.0));
    }

    private void serve(String page) {
        engines.handle("a", (req, res) -> {
            res.header("Content-Type", CONTENT_TYPE);
            res.send(page);
        });
        grid.set(Grid.of(EAST, List.of(cluster())));
        router.reconfigure(
                grid.get(),
                PrefixAffinitySettings.defaults().with(PrefixAffinitySettings.Calibrated.ALL, false),
                TagKeyRing.none(),
                LoadRules.SEED);
    }

    private BackendCluster cluster() {
        return new BackendCluster(
                A, engines.base("a"), Set.of("demo-model"), Optional.empty(), OptionalInt.empty(), false);
    }

    /** A file of the repository's {@code testdata/vllm/}, found from the module's directory upwards. */
    private static String recorded(String name) {
        for (Path at = Path.of("").toAbsolutePath(); at != null; at = at.getParent()) {
            Path file = at.resolve("testdata/vllm").resolve(name);
            if (Files.isRegularFile(file)) {
                try {
                    return Files.readString(file, StandardCharsets.UTF_8);
                } catch (IOException e) {
                    throw new AssertionError("cannot read " + file, e);
                }
            }
        }
        throw new AssertionError("testdata/vllm/" + name + " not found");
    }
}

package grid.gateway.app.observe;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.enginesim.EngineSimulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scrapers that never stop (four at once, alternately OpenMetrics and the text format) while the config is reloaded
 * under them, each reload adding and removing clusters with hostile names and leaving others in place: every page
 * each scraper got is whole and valid in the format its {@code Content-Type} names (a family's series from two grids,
 * a series twice, a family split in two, a removed cluster's half-written family would each fail it), and once the
 * reloads stop the page holds exactly the last grid's clusters.
 */
class ScrapeDuringReloadIntegrationTest {
    private static final int RELOADS = 24;
    private static final int SCRAPERS = 4;

    @TempDir
    Path dir;

    @Test
    void scrapesAcrossReloads_everyPageValid_theLastGridsClustersExactly() throws Exception {
        EngineSimulator one = GatewayHarness.engine("one");
        EngineSimulator two = GatewayHarness.engine("two");
        Path file = dir.resolve("gateway.yaml");
        Files.writeString(file, ScrapersIntegrationTest.config(grid(0), one.url(), two.url()));
        try (GatewayHarness gateway = GatewayHarness.fromFile(file, one, two)) {
            int port = gateway.server.adminPort();
            AtomicBoolean stop = new AtomicBoolean();
            Semaphore pages = new Semaphore(0);
            List<String> failures = Collections.synchronizedList(new ArrayList<>());
            ExecutorService scrapers = Executors.newFixedThreadPool(SCRAPERS);
            List<Future<?>> running = new ArrayList<>();
            for (int s = 0; s < SCRAPERS; s++) {
                boolean openMetrics = s % 2 == 0;
                running.add(scrapers.submit(() -> {
                    while (!stop.get()) {
                        read(port, openMetrics, failures);
                        pages.release();
                    }
                }));
            }
            for (int reload = 1; reload <= RELOADS; reload++) {
                Files.writeString(file, ScrapersIntegrationTest.config(grid(reload), one.url(), two.url()));
                gateway.server.reloadNow();
                pages.drainPermits();
                gateway.post("/v1/chat/completions", ScrapersIntegrationTest.chat(reload));
                // Scrapes run into each reload, and each grid is scraped before the next replaces it.
                assertThat(pages.tryAcquire(SCRAPERS, 20, TimeUnit.SECONDS)).isTrue();
            }
            stop.set(true);
            for (Future<?> scraper : running) {
                scraper.get();
            }
            scrapers.shutdown();

            assertThat(failures).isEmpty();
            for (boolean openMetrics : new boolean[] {true, false}) {
                StrictExposition.Page last = read(port, openMetrics, failures);
                assertThat(ScrapersIntegrationTest.clusters(last))
                        .isEqualTo(ScrapersIntegrationTest.expected(grid(RELOADS)));
            }
            assertThat(failures).isEmpty();
        }
    }

    /** The clusters of change {@code n}: a window of the hostile names over two turns, and one of its own. */
    private static List<String> grid(int n) {
        List<String> names = new ArrayList<>();
        List<String> hostile = ScrapersIntegrationTest.NAMES;
        for (int i = 0; i < 4; i++) {
            names.add(hostile.get((n + i) % hostile.size()));
        }
        names.add("change \"" + n + "\" \\ é");
        return names;
    }

    private static StrictExposition.Page read(int port, boolean openMetrics, List<String> failures) {
        String accept = openMetrics ? ScrapersIntegrationTest.PROMETHEUS_3 : "text/plain;version=0.0.4";
        AdminExchange page = AdminExchange.send(port, ScrapersIntegrationTest.scrape(accept));
        try {
            assertThat(page.status()).isEqualTo(200);
            assertThat(page.framedByLength()).as(page.head()).isTrue();
            assertThat(page.header("Content-Type"))
                    .contains(openMetrics ? ExpositionFormats.OPENMETRICS_TEXT : ExpositionFormats.PROMETHEUS_TEXT);
            return openMetrics
                    ? StrictExposition.openMetrics(page.body())
                    : StrictExposition.prometheusText(page.body());
        } catch (AssertionError e) {
            failures.add(e.getMessage());
            return new StrictExposition.Page(java.util.Map.of(), List.of());
        }
    }
}

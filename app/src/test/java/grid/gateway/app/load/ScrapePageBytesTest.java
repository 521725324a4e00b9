package grid.gateway.app.load;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.config.LoadSettings;
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
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The scrape memory's gauge ({@code grid_inflight_scrape_bytes}): the scraper tells its listener where the bytes all
 * scrapes' pages hold are read, and they are counted while a page is read and given back once it is parsed. A real
 * socket: an engine that sends its page's first bytes, then waits.
 */
class ScrapePageBytesTest {
    private static final SiteName EAST = new SiteName("east");
    private static final ClusterId A = new ClusterId(EAST, "a");
    private static final String PAGE = "vllm:num_requests_waiting 3\n";

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final CountDownLatch rest = new CountDownLatch(1);
    private final ServerSocket engine;
    private QueueScraper scraper;

    ScrapePageBytesTest() throws IOException {
        engine = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(this::serveOnePage);
    }

    @AfterEach
    void stop() throws IOException {
        rest.countDown();
        if (scraper != null) {
            scraper.close();
        }
        scheduler.shutdownNow();
        engine.close();
    }

    @Test
    void pageBeingRead_countedInTheGaugesSupplier_givenBackOnceParsed() {
        ManualClock clock = new ManualClock();
        BackendCluster cluster = new BackendCluster(
                A,
                URI.create("http://127.0.0.1:" + engine.getLocalPort()),
                Set.of("demo-model"),
                Optional.empty(),
                OptionalInt.empty(),
                false);
        Grid grid = Grid.of(EAST, List.of(cluster));
        SiteRouter router = new SiteRouter(
                grid,
                PrefixAffinitySettings.defaults(),
                TagKeyRing.none(),
                QueueScraperTest.parts(clock, new QueueDepthWindow(Duration.ofSeconds(10))));
        AtomicReference<LongSupplier> gauge = new AtomicReference<>();
        scraper = new QueueScraper(() -> grid, LoadSettings::defaults, router, clock, scheduler)
                .events(new LoadEvents() {
                    @Override
                    public void scrapePageBytes(LongSupplier bytes) {
                        gauge.set(bytes);
                    }
                });
        assertThat(gauge.get()).isNotNull();
        assertThat(gauge.get().getAsLong()).isZero();

        CompletableFuture<QueueScraper.Outcome> round = scraper.pollNow().get(A);
        // The page's first buffer is reserved before its first bytes are read into it.
        GatewayHarness.await("the page's buffer counted", () -> gauge.get().getAsLong() == PodFetch.FIRST_BUFFER);
        rest.countDown();

        assertThat(round.join()).isEqualTo(QueueScraper.Outcome.SAMPLED);
        assertThat(gauge.get().getAsLong()).isZero();
    }

    /** Answers one GET with the page's first bytes, and the rest once {@link #rest} is counted down. */
    private void serveOnePage() {
        try (Socket socket = engine.accept()) {
            InputStream in = socket.getInputStream();
            int ends = 0;
            while (ends < 4) {
                int b = in.read();
                if (b < 0) {
                    return;
                }
                ends = (b == '\r' || b == '\n') ? ends + 1 : 0;
            }
            OutputStream out = socket.getOutputStream();
            out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " + PAGE.length() + "\r\n\r\n"
                            + PAGE.substring(0, 5))
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            rest.await(20, TimeUnit.SECONDS);
            out.write(PAGE.substring(5).getBytes(StandardCharsets.US_ASCII));
            out.flush();
            in.read(); // until the scraper closes
        } catch (IOException | InterruptedException e) {
            // The test ended.
        }
    }
}

package grid.gateway.app.load;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.time.ManualClock;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Scrape GETs open at once, on real loopback sockets: one past the limit opens no socket while the limit's GETs are
 * open (here one, held by a pod that answers only when the test lets it), and fails its scrape when it may not wait;
 * the next GET after one ends opens as usual.
 */
class OpenGetsTest {
    private static final String PAGE = "vllm:num_requests_waiting 1\n";

    private final ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor();
    private final PodFetch fetch = new PodFetch(new ManualClock(), watchdog, Duration.ofMinutes(1), new ScrapeMemory());
    private final CountDownLatch heldAccepted = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicInteger pagesAccepted = new AtomicInteger();
    private final ServerSocket held;
    private final ServerSocket pages;

    OpenGetsTest() throws IOException {
        held = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
        pages = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(() -> serve(held, true));
        Thread.ofVirtual().start(() -> serve(pages, false));
    }

    @AfterEach
    void stop() throws IOException {
        release.countDown();
        watchdog.shutdownNow();
        held.close();
        pages.close();
    }

    @Test
    void aGetPastTheLimit_opensNoSocket_failsItsScrape_theNextOneAfterAGetEnded_opens() throws Exception {
        fetch.open(new OpenGets(1, Duration.ZERO));
        CompletableFuture<PodFetch.Fetched<String>> first = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> first.complete(get(held)));
        assertThat(heldAccepted.await(10, TimeUnit.SECONDS)).isTrue();

        PodFetch.Fetched<String> past = get(pages);

        assertThat(past).isEqualTo(new PodFetch.Fetched.Failed<>("not scraped: 1 scrapes were open, a socket each"));
        assertThat(pagesAccepted).hasValue(0);
        release.countDown();
        assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(new PodFetch.Fetched.Answered<>(PAGE));
        assertThat(get(pages)).isEqualTo(new PodFetch.Fetched.Answered<>(PAGE));
        assertThat(pagesAccepted).hasValue(1);
    }

    private PodFetch.Fetched<String> get(ServerSocket pod) {
        URI uri = URI.create("http://127.0.0.1:" + pod.getLocalPort() + "/metrics");
        BackendCluster cluster = new BackendCluster(
                new ClusterId(new SiteName("east"), "a"),
                uri,
                Set.of("m"),
                Optional.empty(),
                OptionalInt.empty(),
                false);
        return fetch.get(cluster, uri, text -> text);
    }

    /** Answers each GET with {@link #PAGE}; a held pod only once the test releases it. */
    private void serve(ServerSocket server, boolean hold) {
        while (!server.isClosed()) {
            try (Socket socket = server.accept()) {
                if (hold) {
                    heldAccepted.countDown();
                } else {
                    pagesAccepted.incrementAndGet();
                }
                readHead(socket.getInputStream());
                if (hold) {
                    release.await();
                }
                socket.getOutputStream()
                        .write(("HTTP/1.1 200 OK\r\nContent-Length: " + PAGE.length() + "\r\nConnection: close\r\n\r\n"
                                        + PAGE)
                                .getBytes(StandardCharsets.US_ASCII));
            } catch (IOException | InterruptedException closed) {
                return;
            }
        }
    }

    private static void readHead(InputStream in) throws IOException {
        int matched = 0;
        int b;
        while (matched < 4 && (b = in.read()) >= 0) {
            matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
    }
}

package grid.gateway.app.load;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.HeldAlarms;
import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.time.ManualClock;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
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
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One pod GET against a raw-socket engine whose answers are not one per request (an interim answer before the page, a
 * body longer than its Content-Length): an interim answer is skipped, and whatever is left on the connection never
 * becomes the next scrape's page, so a cluster's depth is never one scrape behind or another page's; a page that
 * trickles in ends at the body deadline, on a controlled clock; a page far over the limit ends at the limit, whatever
 * its framing announced.
 */
class PodFetchTest {
    /**
     * The whole deadline of the head-trickle test's fetch, run on {@link #alarms} when the test fires it; the other
     * tests' is a minute, long past their end.
     */
    private static final long WHOLE_MILLIS = 1_000;

    private final ManualClock clock = new ManualClock();
    private final ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor();
    /** The memory the fetches' pages share, as the scraper's. */
    private final ScrapeMemory memory = new ScrapeMemory();

    private final PodFetch fetch = new PodFetch(clock, watchdog, Duration.ofMinutes(1), memory);
    /** The head-trickle test's watchdog: its whole deadline goes off when the test fires it. */
    private final HeldAlarms alarms = new HeldAlarms();

    private final PodFetch impatient = new PodFetch(clock, alarms, Duration.ofMillis(WHOLE_MILLIS), memory);
    /** Bytes of a trickled page written so far. */
    private final AtomicInteger trickled = new AtomicInteger();

    private final AtomicInteger requests = new AtomicInteger();
    private final ServerSocket server;
    private volatile String script = "";

    PodFetchTest() throws IOException {
        server = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(this::accept);
    }

    @AfterEach
    void stop() throws IOException {
        watchdog.shutdownNow();
        alarms.shutdownNow();
        server.close();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                Thread.ofVirtual().start(() -> serve(socket));
            } catch (IOException closed) {
                return;
            }
        }
    }

    /** Answers every request on the connection with the script, its {@code N} replaced by the request's number. */
    private void serve(Socket socket) {
        try (socket) {
            InputStream in = socket.getInputStream();
            OutputStream out = socket.getOutputStream();
            while (readHead(in)) {
                if (script.equals("TRICKLE")) {
                    trickle(out);
                    return;
                }
                if (script.equals("TRICKLE_HEAD")) {
                    trickleHead(out);
                    return;
                }
                if (script.startsWith("OVERSIZE ")) {
                    oversize(out, script.substring("OVERSIZE ".length()));
                    readUntilClosed(in);
                    return;
                }
                if (script.endsWith(" CLOSE")) {
                    out.write(script.substring(0, script.length() - " CLOSE".length())
                            .getBytes(StandardCharsets.ISO_8859_1));
                    return;
                }
                String page = "vllm:num_requests_waiting{model_name=\"m\"} " + requests.incrementAndGet() + ".0\n";
                out.write(script.replace("PAGE", page)
                        .replace("LENGTH", Integer.toString(page.length()))
                        .getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
            }
        } catch (IOException | InterruptedException gone) {
            // The fetch closed its connection.
        }
    }

    /** A page of 100,000 bytes announced, then written a byte every 20 ms: never silent for the read timeout. */
    private void trickle(OutputStream out) throws IOException, InterruptedException {
        out.write("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        for (int i = 0; i < 100_000; i++) {
            out.write('#');
            out.flush();
            trickled.incrementAndGet();
            Thread.sleep(20);
        }
    }

    /** A status line, then a header field a byte every 20 ms that never ends: never silent for the read timeout. */
    private void trickleHead(OutputStream out) throws IOException, InterruptedException {
        out.write("HTTP/1.1 200 OK\r\nX-Padding: ".getBytes(StandardCharsets.ISO_8859_1));
        while (true) {
            out.write('#');
            out.flush();
            trickled.incrementAndGet();
            Thread.sleep(20);
        }
    }

    /**
     * A head announcing a page far over the limit ({@code framing}: the field that says so, or the chunk size line
     * after it), then a little more than the limit of it, written at once; then nothing, the connection kept open.
     */
    private void oversize(OutputStream out, String framing) throws IOException {
        String head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n" + framing;
        out.write(head.getBytes(StandardCharsets.ISO_8859_1));
        byte[] comments = new byte[64 * 1024];
        java.util.Arrays.fill(comments, (byte) '#');
        for (int i = 0; i < PodFetch.MAX_EXPOSITION_BYTES / comments.length + 16; i++) {
            out.write(comments);
            trickled.addAndGet(comments.length);
        }
        out.flush();
    }

    private static void readUntilClosed(InputStream in) throws IOException {
        while (in.read() >= 0) {
            // Nothing more comes from the fetch: its close ends this.
        }
    }

    private static boolean readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0) {
            head.write(b);
            if (head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
                return true;
            }
        }
        return false;
    }

    private PodFetch.Fetched<String> get() {
        return get(fetch);
    }

    private PodFetch.Fetched<String> get(PodFetch fetch) {
        return get(fetch, text -> text);
    }

    private <T> PodFetch.Fetched<T> get(PodFetch fetch, Function<String, T> reader) {
        ClusterId id = new ClusterId(new SiteName("east"), "a");
        URI uri = URI.create("http://127.0.0.1:" + server.getLocalPort() + "/metrics");
        BackendCluster cluster = new BackendCluster(id, uri, Set.of("m"), Optional.empty(), OptionalInt.empty(), false);
        return fetch.get(cluster, uri, reader);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                // An interim answer, then the page: a client that took the 103 for the final answer would leave the
                // page on the connection.
                "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: LENGTH\r\n\r\nPAGE",
                // A page followed by another answer, as an engine that writes one too many.
                "HTTP/1.1 200 OK\r\nContent-Length: LENGTH\r\n\r\nPAGEHTTP/1.1 200 OK\r\nContent-Length: LENGTH\r\n\r\n"
                        + "vllm:num_requests_waiting{model_name=\"m\"} 99.0\n"
            })
    void whatAnAnswerLeavesOnTheConnection_neverBecomesTheNextScrapesPage(String answer) {
        script = answer;
        for (int scrape = 1; scrape <= 3; scrape++) {
            PodFetch.Fetched<String> fetched = get();
            if (fetched instanceof PodFetch.Fetched.Answered<String> page) {
                // Scrapes run one after another, one request each: scrape k's own page is page k.
                assertThat(page.value()).as("scrape " + scrape).contains("} " + scrape + ".0");
            }
        }
        assertThat(requests.get()).as("one request per scrape").isEqualTo(3);
    }

    @Test
    void pageThatTricklesIn_failsOnceTheBodyDeadlinePassed() throws Exception {
        script = "TRICKLE";
        CompletableFuture<PodFetch.Fetched<String>> fetched = CompletableFuture.supplyAsync(this::get);
        GatewayHarness.await("the page started", () -> trickled.get() >= 3);
        assertThat(fetched).isNotDone();

        clock.advance(Duration.ofSeconds(PodFetch.BODY_SECONDS + 1));

        assertThat(fetched.get(10, TimeUnit.SECONDS))
                .isEqualTo(new PodFetch.Fetched.Failed<>("exposition not read within 5 s"));
    }

    @Test
    void headThatTricklesIn_cutAtTheWholeDeadline_threadLeftWithoutInterrupt() throws Exception {
        script = "TRICKLE_HEAD";
        CompletableFuture<PodFetch.Fetched<String>> fetched = new CompletableFuture<>();
        CompletableFuture<Boolean> interruptedAfter = new CompletableFuture<>();
        // On a virtual thread, as the scraper's GETs run: its blocked read ends when interrupted.
        Thread.ofVirtual().start(() -> {
            fetched.complete(get(impatient));
            interruptedAfter.complete(Thread.currentThread().isInterrupted());
        });

        GatewayHarness.await("the head started", () -> trickled.get() >= 3 && alarms.scheduled() == 1);
        assertThat(fetched).as("a head that keeps coming is read on").isNotDone();

        assertThat(alarms.fire()).as("the whole deadline goes off").isEqualTo(1);

        // The harness's deadline only stops a test whose fetch the deadline did not end.
        long deadline = GatewayHarness.DEADLINE.toMillis();
        assertThat(fetched.get(deadline, TimeUnit.MILLISECONDS))
                .isEqualTo(new PodFetch.Fetched.Failed<>("no whole answer within " + WHOLE_MILLIS + " ms"));
        assertThat(interruptedAfter.get(deadline, TimeUnit.MILLISECONDS))
                .as("the alarm's interrupt is taken back")
                .isFalse();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "Content-Length: 2147483647\r\n\r\n",
                // One chunk of 2 GiB: a reader that takes a chunk whole before handing on any of it holds it all.
                "Transfer-Encoding: chunked\r\n\r\n7fffffff\r\n"
            })
    void pageFarOverTheLimit_failsOnceTheLimitIsRead_neverWaitsForTheWhole(String framing) {
        script = "OVERSIZE " + framing;

        // The engine sent a little more than the limit and waits: the scrape ends at the limit, whatever the framing
        // announced, without waiting for (and holding) the rest.
        assertThat(get())
                .isEqualTo(
                        new PodFetch.Fetched.Failed<>("exposition over " + PodFetch.MAX_EXPOSITION_BYTES + " bytes"));
    }

    @Test
    void interimAnswersBeforeThePage_skipped_pageRead() {
        script = "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5\r\n# hi\n\r\n0\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: LENGTH\r\n\r\nPAGE";

        // The chunked page is "# hi" alone: the answer written after it is left on the connection, which is closed.
        assertThat(get()).isEqualTo(new PodFetch.Fetched.Answered<>("# hi\n"));
        assertThat(get()).isEqualTo(new PodFetch.Fetched.Answered<>("# hi\n"));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                // A Content-Length short of the page: "12.0" read as "1".
                "HTTP/1.1 200 OK\r\nContent-Length: 43\r\n\r\nvllm:num_requests_waiting{model_name=\"m\"} 12.0\n",
                // A close-delimited page closed inside its last sample.
                "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nvllm:num_requests_waiting{model_name=\"m\"} 1 CLOSE"
            })
    void pageCutInsideItsLastLine_failsItsScrape_neverReadShort(String answer) {
        script = answer;
        assertThat(get())
                .isEqualTo(new PodFetch.Fetched.Failed<>(
                        "exposition cut short or not Prometheus text: its last line has no line feed"));
        assertThat(memory.inUse()).isZero();
    }

    @Test
    void plainPages_eachScrapeReadsItsOwn() {
        script = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: LENGTH\r\n\r\nPAGE";
        for (int scrape = 1; scrape <= 3; scrape++) {
            PodFetch.Fetched<String> fetched = get();
            assertThat(fetched).isInstanceOf(PodFetch.Fetched.Answered.class);
            assertThat(((PodFetch.Fetched.Answered<String>) fetched).value()).contains("} " + scrape + ".0");
        }
    }

    @Test
    void pageTheSharedMemoryHasNoRoomFor_failsItsScrape_thenAPageReadOnceThereIsRoom() {
        script = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: LENGTH\r\n\r\nPAGE";
        // Other pods' pages hold all but a first buffer's worth, less a byte: this page's buffer does not fit.
        long others = memory.limit() - PodFetch.FIRST_BUFFER + 1;
        assertThat(memory.tryReserve(others)).isTrue();

        assertThat(get())
                .isEqualTo(new PodFetch.Fetched.Failed<>(
                        "not read: the scrapes' page memory (" + memory.limit() + " bytes) is spent"));
        assertThat(memory.inUse()).as("the failed page gave back what it held").isEqualTo(others);

        memory.release(others);
        AtomicLong heldWhileParsed = new AtomicLong();
        PodFetch.Fetched<Integer> parsed = get(fetch, text -> {
            heldWhileParsed.set(memory.inUse());
            return text.length();
        });
        assertThat(parsed).isInstanceOf(PodFetch.Fetched.Answered.class);
        int length = ((PodFetch.Fetched.Answered<Integer>) parsed).value();
        assertThat(heldWhileParsed.get())
                .as("the text, counted while it is parsed")
                .isEqualTo(length);
        assertThat(memory.inUse()).as("everything given back once parsed").isZero();
    }

    @Test
    void pageOverTheLimit_givesBackWhatItHeld() {
        script = "OVERSIZE Content-Length: 2147483647\r\n\r\n";
        assertThat(get()).isInstanceOf(PodFetch.Fetched.Failed.class);
        assertThat(memory.inUse()).isZero();
    }

    @Test
    void pageWhoseTextTheMemoryHasNoRoomFor_failsBeforeTheTextIsMade() {
        // A 3 MiB page read into a 4 MiB buffer; its text would take 3 MiB more, which the memory does not hold.
        int size = 3 << 20;
        String line = "# HELP a line of a large page\n";
        String page = line.repeat(size / line.length() + 1).substring(0, size - 1) + "\n";
        script = "HTTP/1.1 200 OK\r\nContent-Length: " + size + "\r\n\r\n" + page + " CLOSE";
        long buffers = 0; // every buffer the page grows through: 16 KiB, 32 KiB, ... 4 MiB
        for (long capacity = PodFetch.FIRST_BUFFER; capacity < 2L * size; capacity *= 2) {
            buffers += capacity;
        }
        // Room for the buffer's growth from 2 MiB to 4 MiB (6 MiB at once), not for the 4 MiB and the text (7 MiB).
        ScrapeMemory small = new ScrapeMemory(13L << 19);
        PodFetch tight = new PodFetch(clock, watchdog, Duration.ofMinutes(1), small);
        get(tight); // warm: classes, code paths
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().threadId();

        long before = threads.getThreadAllocatedBytes(thread);
        PodFetch.Fetched<String> fetched = get(tight);
        long allocated = threads.getThreadAllocatedBytes(thread) - before;

        assertThat(fetched)
                .isEqualTo(new PodFetch.Fetched.Failed<>(
                        "not read: the scrapes' page memory (" + small.limit() + " bytes) is spent"));
        assertThat(allocated)
                .as("bytes allocated: the page's buffers, not its text")
                .isLessThan(buffers + size / 3);
        assertThat(small.inUse()).isZero();
    }

    static Stream<Arguments> answersThatAreNoPage() throws IOException {
        ByteArrayOutputStream zipped = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(zipped)) {
            gzip.write("vllm:num_requests_waiting 3\n".getBytes(StandardCharsets.US_ASCII));
        }
        String gzipped = zipped.toString(StandardCharsets.ISO_8859_1);
        return Stream.of(
                Arguments.of("HTTP/1.1 302 Found\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\r\n", "answered 302"),
                Arguments.of("HTTP/1.1 401 Unauthorized\r\nContent-Length: 2\r\n\r\nno", "answered 401"),
                // A coding the GET did not accept (it sends Accept-Encoding: identity): said by its name.
                Arguments.of(
                        "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: " + gzipped.length() + "\r\n\r\n"
                                + gzipped,
                        "answered in content coding \"gzip\", which the scrape did not ask for (Accept-Encoding:"
                                + " identity)"),
                // Whatever coding, and however the page ends (this one with a line feed).
                Arguments.of(
                        "HTTP/1.1 200 OK\r\nContent-Encoding: identity, br\r\nContent-Length: 2\r\n\r\nx\n",
                        "answered in content coding \"br\", which the scrape did not ask for (Accept-Encoding:"
                                + " identity)"));
    }

    @ParameterizedTest
    @MethodSource("answersThatAreNoPage")
    void answersThatAreNoPage_failTheirScrape_sayingWhy(String answer, String why) {
        script = answer;
        assertThat(get()).isEqualTo(new PodFetch.Fetched.Failed<>(why));
        assertThat(memory.inUse()).isZero();
    }

    @Test
    void identityCoding_isNoCoding_thePageReadAsWritten() {
        script = "HTTP/1.1 200 OK\r\nContent-Encoding: identity\r\nContent-Length: 4\r\n\r\nm 1\n";
        assertThat(get()).isEqualTo(new PodFetch.Fetched.Answered<>("m 1\n"));
    }

    @Test
    void chunkedPageWithTrailers_readWhole_trailersLeftOut() {
        script = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n"
                + "5\r\n# hi\n\r\n0\r\nX-Sum: 5\r\n\r\n";
        assertThat(get()).isEqualTo(new PodFetch.Fetched.Answered<>("# hi\n"));
    }
}

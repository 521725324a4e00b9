package grid.gateway.app.load;

import static java.util.Objects.requireNonNull;

import grid.gateway.app.forward.Causes;
import grid.gateway.app.forward.PageGet;
import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.time.MonotonicClock;
import grid.gateway.routing.time.SystemMonotonicClock;
import io.helidon.common.tls.Tls;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * GETs one pod's Prometheus exposition: connect {@value #CONNECT_SECONDS} s, read {@value #READ_SECONDS} s, the body
 * whole within {@value #BODY_SECONDS} s of the answer's head, the whole GET within {@value #WHOLE_SECONDS} s, no
 * redirects, at most {@link #MAX_EXPOSITION_BYTES}; an https URL with its cluster's TLS.
 *
 * <p>The GET is the gateway's own ({@link PageGet}): the head read strictly (an interim {@code 103 Early Hints} is
 * skipped, never taken for the page's answer), the body read a buffer at a time whatever its framing announced, so
 * the limit bounds what a scrape holds (a chunk announced as 2 GiB is read and refused at the limit like any other
 * page, never gathered whole first).
 *
 * <p>A page whose last byte is not a line feed is a failed scrape: the text format ends every line with one, so such a
 * page was cut short, and its last sample may have lost digits.
 *
 * <p>What a page holds is counted in the memory all scrapes share ({@link ScrapeMemory}): its buffer as it grows, then
 * the text decoded from it (reserved before it is decoded) while the caller's reader parses it, all given back once
 * parsed. A page the shared memory has no room for fails its scrape.
 *
 * <p>The read timeout bounds each read only: an engine that trickles its TLS handshake or its answer's head, a byte
 * now and then, would hold the GET (and its cluster's scrapes, since no other starts while one runs) for hours. So an
 * alarm interrupts the GET's thread at the whole deadline: a blocked read of the connection's channel then closes it.
 *
 * <p>Each GET has a connection of its own, closed after its answer ({@code Connection: close}), so nothing an engine
 * writes after a page (a body longer than its {@code Content-Length}, a second answer) can become the next scrape's
 * page. The cost is one connect per pod per poll, and at most {@link OpenGets#MAX} sockets open at once.
 *
 * <p>Thread-safe: every scrape shares the GET, each on a connection of its own.
 */
final class PodFetch {
    static final int CONNECT_SECONDS = 1;
    static final int READ_SECONDS = 2;
    /** The longest time the body may take once the head is read: a page that trickles in is cut like a silent one. */
    static final int BODY_SECONDS = 5;
    /** The longest a GET may take in all, handshake and head included: connect, a head read, the body, and 2 s. */
    static final int WHOLE_SECONDS = CONNECT_SECONDS + READ_SECONDS + BODY_SECONDS + 2;
    /** The largest exposition read; a larger one is a failed scrape. */
    static final int MAX_EXPOSITION_BYTES = 8 * 1024 * 1024;
    /** A page's first buffer; it doubles as the page comes, up to one byte over the limit. */
    static final int FIRST_BUFFER = 16 * 1024;
    /** The most characters of an engine's header value a failure quotes. */
    private static final int NAMED_CHARS = 64;

    /** What one GET gave: what the caller read from a 2xx answer's exposition, or why there is none. */
    sealed interface Fetched<T> {
        /** What the caller's reader made of a 2xx answer's text. */
        record Answered<T>(T value) implements Fetched<T> {}

        /**
         * No usable answer; {@code why} ends a log line. {@code down}: the GET could not connect (nothing accepted at
         * the pod's address), so the pod is not running; otherwise it was reached, or not tried, and its load is
         * unknown.
         */
        record Failed<T>(String why, boolean down) implements Fetched<T> {
            /** A failure that does not say the pod is down. */
            Failed(String why) {
                this(why, false);
            }
        }
    }

    private volatile Function<BackendCluster, Optional<Tls>> tls = cluster -> Optional.empty();
    /** The GETs open at once, a socket each; one past the limit waits for one to end, at most a whole GET's time. */
    private volatile OpenGets open = new OpenGets(OpenGets.MAX, Duration.ofSeconds(WHOLE_SECONDS));

    private final MonotonicClock clock;
    private final ScheduledExecutorService watchdog;
    private final Duration whole;
    private final PageGet pages;
    private final ScrapeMemory memory;

    /**
     * A fetch whose body deadline runs on the system's monotonic clock and whole deadline on {@code watchdog}, its pages
     * held in {@code memory}.
     */
    PodFetch(ScheduledExecutorService watchdog, ScrapeMemory memory) {
        this(SystemMonotonicClock.INSTANCE, watchdog, Duration.ofSeconds(WHOLE_SECONDS), memory);
    }

    /** A fetch whose body deadline runs on {@code clock}, and the whole GET within {@code whole} (tests). */
    PodFetch(MonotonicClock clock, ScheduledExecutorService watchdog, Duration whole, ScrapeMemory memory) {
        this.memory = requireNonNull(memory, "memory");
        this.clock = requireNonNull(clock, "clock");
        this.watchdog = requireNonNull(watchdog, "watchdog");
        this.whole = requireNonNull(whole, "whole");
        this.pages = new PageGet(Duration.ofSeconds(CONNECT_SECONDS), Duration.ofSeconds(READ_SECONDS), watchdog);
    }

    /** Bytes the pages of all scrapes hold now. */
    long heldBytes() {
        return memory.inUse();
    }

    /** Opens at most {@code gets} GETs at once (tests). */
    void open(OpenGets gets) {
        this.open = requireNonNull(gets, "gets");
    }

    /** Uses {@code clusterTls} for https URLs. */
    void tls(Function<BackendCluster, Optional<Tls>> clusterTls) {
        this.tls = requireNonNull(clusterTls, "clusterTls");
    }

    /**
     * One GET of {@code uri}, a pod of {@code cluster}, within the whole deadline; a 2xx answer's text is given to
     * {@code reader} while the page is held (counted), and let go of once it returns.
     */
    <T> Fetched<T> get(BackendCluster cluster, URI uri, Function<String, T> reader) {
        OpenGets gets = open;
        try {
            if (!gets.enter()) {
                return new Fetched.Failed<>("not scraped: " + gets.max() + " scrapes were open, a socket each");
            }
        } catch (InterruptedException closing) {
            Thread.currentThread().interrupt();
            return new Fetched.Failed<>("not scraped: the scraper closed");
        }
        try {
            return opened(cluster, uri, reader);
        } finally {
            gets.leave();
        }
    }

    private <T> Fetched<T> opened(BackendCluster cluster, URI uri, Function<String, T> reader) {
        WholeDeadline deadline = new WholeDeadline(Thread.currentThread());
        ScheduledFuture<?> alarm = watchdog.schedule(deadline::fire, whole.toNanos(), TimeUnit.NANOSECONDS);
        try {
            // Read whole before the alarm cut it: the page stands, whatever the alarm did since.
            return fetch(cluster, uri, reader);
        } catch (IOException | RuntimeException failed) {
            return deadline.end()
                    ? cut()
                    : new Fetched.Failed<>(
                            "failed: " + Causes.describe(failed), failed instanceof PageGet.NotConnected);
        } finally {
            deadline.end();
            alarm.cancel(false);
        }
    }

    private <T> Fetched<T> cut() {
        return new Fetched.Failed<>("no whole answer within " + whole.toMillis() + " ms");
    }

    private <T> Fetched<T> fetch(BackendCluster cluster, URI uri, Function<String, T> reader) throws IOException {
        @Nullable
        Tls clusterTls =
                "https".equalsIgnoreCase(uri.getScheme()) ? tls.apply(cluster).orElse(null) : null;
        try (PageGet.Page answer = pages.get(uri, clusterTls)) {
            if (answer.status() / 100 != 2) {
                return new Fetched.Failed<>("answered " + answer.status());
            }
            List<String> codings = answer.contentCodings();
            if (!codings.isEmpty()) {
                // Its bytes are no text the parser can read: said as what they are, not as a page cut short.
                return new Fetched.Failed<>("answered in content coding " + quoted(String.join(", ", codings))
                        + ", which the scrape did not ask for (Accept-Encoding: identity)");
            }
            try (Held held = new Held()) {
                return body(
                        answer.body(),
                        clock.nanoTime() + Duration.ofSeconds(BODY_SECONDS).toNanos(),
                        held,
                        reader);
            }
        }
    }

    /**
     * The whole deadline of one GET: the alarm interrupts the GET's thread unless the GET ended first, and the GET's
     * end takes back an interrupt the alarm gave, so that none reaches what the thread does next.
     */
    private static final class WholeDeadline {
        private final Thread thread;
        private boolean ended;
        private boolean fired;

        WholeDeadline(Thread thread) {
            this.thread = thread;
        }

        synchronized void fire() {
            if (!ended) {
                fired = true;
                thread.interrupt();
            }
        }

        /** Ends the GET (again: idempotent); true when the alarm cut it. */
        synchronized boolean end() {
            if (!ended) {
                ended = true;
                if (fired) {
                    Thread.interrupted();
                }
            }
            return fired;
        }
    }

    /**
     * Reads the body read by read into a buffer that grows as it comes (reserved in the shared memory before it is
     * allocated), at most one byte over the limit (an oversized body is recognised without holding it), failing once
     * {@code deadline} has passed; then decodes it (the text reserved too) and hands the text to {@code reader}.
     */
    private <T> Fetched<T> body(InputStream in, long deadline, Held held, Function<String, T> reader)
            throws IOException {
        byte[] page = new byte[0];
        int size = 0;
        while (true) {
            if (size == page.length) {
                int capacity = (int) Math.min(MAX_EXPOSITION_BYTES + 1L, Math.max(FIRST_BUFFER, 2L * size));
                if (!held.reserve(capacity)) {
                    return memorySpent();
                }
                page = Arrays.copyOf(page, capacity);
                held.release(size); // the smaller buffer, let go of
            }
            int n = in.read(page, size, page.length - size);
            if (n < 0) {
                break;
            }
            size += n;
            if (size > MAX_EXPOSITION_BYTES) {
                return new Fetched.Failed<>("exposition over " + MAX_EXPOSITION_BYTES + " bytes");
            }
            if (clock.nanoTime() - deadline > 0) {
                return new Fetched.Failed<>("exposition not read within " + BODY_SECONDS + " s");
            }
        }
        // The text format ends every line, the last one too, with a line feed: a page that ends inside a line was
        // cut short (a close inside a close-delimited page, a Content-Length short of the page), and its last sample
        // may be cut inside its value (12 read as 1).
        if (size > 0 && page[size - 1] != '\n') {
            return new Fetched.Failed<>("exposition cut short or not Prometheus text: its last line has no line feed");
        }
        // The text is reserved before it is made, so that pages near the limit cannot together hold twice the shared
        // memory while each decodes: one byte a character when the page is ASCII (a compact string), else at most
        // two for each byte (a character takes one byte of UTF-8 at least).
        boolean ascii = ascii(page, size);
        long textBytes = ascii ? size : 2L * size;
        if (!held.reserve(textBytes)) {
            return memorySpent();
        }
        String text = new String(page, 0, size, StandardCharsets.UTF_8);
        held.release(page.length + (ascii ? 0 : textBytes - 2L * text.length()));
        page = null; // the buffer is let go of before the text is parsed
        return new Fetched.Answered<>(reader.apply(text));
    }

    /** {@code named} as the engine wrote it, in quotes, cut at {@value #NAMED_CHARS} characters. */
    private static String quoted(String named) {
        return "\"" + (named.length() > NAMED_CHARS ? named.substring(0, NAMED_CHARS) + "…" : named) + "\"";
    }

    private static boolean ascii(byte[] page, int size) {
        for (int i = 0; i < size; i++) {
            if (page[i] < 0) {
                return false;
            }
        }
        return true;
    }

    private <T> Fetched<T> memorySpent() {
        return new Fetched.Failed<>("not read: the scrapes' page memory (" + memory.limit() + " bytes) is spent");
    }

    /** What one page holds of the shared memory, all given back when it is closed. */
    private final class Held implements AutoCloseable {
        private long held;

        boolean reserve(long bytes) {
            if (!memory.tryReserve(bytes)) {
                return false;
            }
            held += bytes;
            return true;
        }

        void release(long bytes) {
            memory.release(bytes);
            held -= bytes;
        }

        @Override
        public void close() {
            memory.release(held);
            held = 0;
        }
    }
}

package grid.gateway.enginesim;

import io.helidon.http.Header;
import io.helidon.webserver.http.ServerRequest;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The record of every request a simulator received, MockWebServer-style: a queue that tests take from, a count of
 * recorded requests, and a separate count of {@code /metrics} scrapes, which are not recorded because a gateway
 * scrapes often. It keeps the last {@value #KEPT} requests, so that a simulator running for hours (the soak) does not
 * grow without bound; a test takes them long before that.
 *
 * <p>Thread-safe: a concurrent queue and atomic counters.
 */
final class RequestLog {
    static final int KEPT = 10_000;

    private final BlockingQueue<RecordedRequest> requests = new LinkedBlockingQueue<>();
    private final AtomicInteger recorded = new AtomicInteger();
    private final AtomicInteger scrapes = new AtomicInteger();
    /** One permit per answer the peer abandoned (closed its connection while the answer was being written). */
    private final Semaphore abandoned = new Semaphore(0);

    /** Reads the whole body of {@code request} and records it. */
    RecordedRequest record(ServerRequest request) {
        byte[] body = request.content().hasEntity() ? request.content().as(byte[].class) : new byte[0];
        String query = request.query().rawValue();
        String strict = wellFormed(body);
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (Header header : request.headers()) {
            headers.computeIfAbsent(header.name().toLowerCase(Locale.ROOT), k -> new ArrayList<>())
                    .addAll(header.allValues());
        }
        headers.replaceAll((name, values) -> List.copyOf(values));
        RecordedRequest recordedRequest = new RecordedRequest(
                recorded.getAndIncrement(),
                request.prologue().method().text(),
                request.path().rawPath() + (query.isEmpty() ? "" : "?" + query),
                headers,
                strict == null ? new String(body, StandardCharsets.UTF_8) : strict,
                strict != null,
                body);
        requests.add(recordedRequest);
        while (requests.size() > KEPT) {
            requests.poll();
        }
        return recordedRequest;
    }

    /** The text of {@code utf8}, or null when it is not well-formed UTF-8. */
    @Nullable
    private static String wellFormed(byte[] utf8) {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(utf8))
                    .toString();
        } catch (CharacterCodingException malformed) {
            return null;
        }
    }

    /** Notes that the peer closed its connection while an answer was being written. */
    void abandoned() {
        abandoned.release();
    }

    /** Waits up to {@code timeout} for an abandoned answer not yet awaited; whether there was one. */
    boolean awaitAbandoned(Duration timeout) throws InterruptedException {
        return abandoned.tryAcquire(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    void scraped() {
        scrapes.incrementAndGet();
    }

    Optional<RecordedRequest> take(Duration timeout) throws InterruptedException {
        return Optional.ofNullable(requests.poll(timeout.toNanos(), TimeUnit.NANOSECONDS));
    }

    int requestCount() {
        return recorded.get();
    }

    int scrapeCount() {
        return scrapes.get();
    }
}

package grid.gateway.conformance.soak;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Sends one soak request and reads its answer to the end (or aborts it on purpose), with a deadline after which
 * the exchange counts as hung: a watchdog closes the body stream then, so that no client thread waits forever.
 *
 * <p>Thread-safe: one call per request; the client and watchdog are shared.
 */
final class Exchange {
    private final HttpClient client;
    private final ScheduledExecutorService watchdog;
    private final Duration deadline;

    /** What came back. */
    record Outcome(Tally.End end, int status, String body) {}

    Exchange(HttpClient client, ScheduledExecutorService watchdog, Duration deadline) {
        this.client = client;
        this.watchdog = watchdog;
        this.deadline = deadline;
    }

    /**
     * Sends {@code request}; with {@code abortAfterFirstEvent} closes the body once the first event arrived.
     * {@code complete} tells whether a read body is whole (a stream's final event, say).
     */
    Outcome send(HttpRequest request, boolean abortAfterFirstEvent, java.util.function.Predicate<String> complete) {
        AtomicBoolean hung = new AtomicBoolean();
        HttpResponse<InputStream> answer;
        try {
            answer = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
        } catch (java.net.http.HttpTimeoutException e) {
            return new Outcome(Tally.End.HUNG, -1, "no headers within " + deadline);
        } catch (IOException e) {
            return new Outcome(Tally.End.ABNORMAL, -1, String.valueOf(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Outcome(Tally.End.HUNG, -1, "interrupted");
        }
        InputStream in = answer.body();
        ScheduledFuture<?> alarm = watchdog.schedule(
                () -> {
                    hung.set(true);
                    closeQuietly(in);
                },
                deadline.toMillis(),
                TimeUnit.MILLISECONDS);
        try {
            String body = abortAfterFirstEvent ? firstEvent(in) : new String(in.readAllBytes(), StandardCharsets.UTF_8);
            if (abortAfterFirstEvent) {
                in.close();
                return new Outcome(Tally.End.CLIENT_ABORT, answer.statusCode(), body);
            }
            Tally.End end = complete.test(body) ? Tally.End.ANSWERED : Tally.End.ABNORMAL;
            return new Outcome(end, answer.statusCode(), body);
        } catch (IOException e) {
            closeQuietly(in);
            return new Outcome(hung.get() ? Tally.End.HUNG : Tally.End.ABNORMAL, answer.statusCode(), e.toString());
        } finally {
            alarm.cancel(false);
        }
    }

    /** Reads until the first blank line (the end of the first SSE event) or the end of the body. */
    private static String firstEvent(InputStream in) throws IOException {
        StringBuilder text = new StringBuilder();
        int b;
        while ((b = in.read()) >= 0) {
            text.append((char) b);
            if (text.length() > 1 && text.charAt(text.length() - 1) == '\n' && text.charAt(text.length() - 2) == '\n') {
                break;
            }
        }
        return text.toString();
    }

    private static void closeQuietly(InputStream in) {
        try {
            in.close();
        } catch (IOException ignored) {
            // already broken
        }
    }
}

package grid.gateway.app.forward;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** What a body's tail and an event stream's tail keep, whatever the pieces the bytes arrive in. */
class BodyTailTest {
    private static String kept(BodyTail tail) {
        return new String(tail.bytes(), StandardCharsets.ISO_8859_1);
    }

    private static void append(BodyTail tail, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.ISO_8859_1);
        tail.append(bytes, 0, bytes.length);
    }

    @Test
    void body_keepsItsLastCapacityBytes() {
        BodyTail tail = new BodyTail();
        String body = "x".repeat(BodyTail.CAPACITY) + "{\"usage\":1}";
        append(tail, body);
        assertThat(kept(tail)).hasSize(BodyTail.CAPACITY).endsWith("{\"usage\":1}");
    }

    @Test
    void counted_everyByteOfItsBufferAsItGrows_nothingForATailNobodyReads() {
        java.util.concurrent.atomic.AtomicLong counted = new java.util.concurrent.atomic.AtomicLong();
        BodyTail body = new BodyTail(counted::addAndGet);
        append(body, "x".repeat(3 * BodyTail.CAPACITY));
        assertThat(counted.get()).isEqualTo(BodyTail.CAPACITY);

        counted.set(0);
        BodyTail events = BodyTail.ofEvents(counted::addAndGet);
        append(events, "data: " + "y".repeat(2 * BodyTail.CAPACITY) + "\n\n");
        assertThat(counted.get()).isEqualTo(BodyTail.CAPACITY);

        BodyTail unread = BodyTail.unread();
        append(unread, "z".repeat(BodyTail.CAPACITY));
        assertThat(unread.bytes()).isEmpty();
    }

    @Test
    void events_keepTheLastTwoWholeEventsAndTheOneInProgress() {
        BodyTail tail = BodyTail.ofEvents();
        for (int i = 0; i < 1_000; i++) {
            append(tail, "data: {\"n\":" + i + "}\n\n");
        }
        append(tail, "data: {\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":32}}}\n\ndata: [DONE]\n\n");
        assertThat(kept(tail))
                .isEqualTo("data: {\"usage\":{\"prompt_tokens_details\":{\"cached_tokens\":32}}}\n\ndata: [DONE]\n\n");
        append(tail, "data: {\"n\":1}\n\ndata: {\"partial");
        assertThat(kept(tail)).isEqualTo("data: [DONE]\n\ndata: {\"n\":1}\n\ndata: {\"partial");
    }

    @Test
    void events_anyPieces_sameTailAsWhole_crlfEventsToo() {
        String stream = "event: a\r\ndata: 1\r\n\r\nevent: b\r\ndata: 22\r\n\r\nevent: c\r\ndata: 333\r\n\r\nevent: d";
        BodyTail whole = BodyTail.ofEvents();
        append(whole, stream);
        assertThat(kept(whole)).isEqualTo("event: b\r\ndata: 22\r\n\r\nevent: c\r\ndata: 333\r\n\r\nevent: d");
        Random random = new Random(7);
        for (int trial = 0; trial < 200; trial++) {
            BodyTail pieces = BodyTail.ofEvents();
            for (int at = 0; at < stream.length(); ) {
                int n = Math.min(stream.length() - at, 1 + random.nextInt(9));
                append(pieces, stream.substring(at, at + n));
                at += n;
            }
            assertThat(kept(pieces)).as("trial %d", trial).isEqualTo(kept(whole));
        }
    }

    @Test
    void events_oneEventLongerThanTheCapacity_keepsAtMostTheCapacity() {
        BodyTail tail = BodyTail.ofEvents();
        append(tail, "data: {\"n\":0}\n\n");
        append(tail, "data: " + "y".repeat(3 * BodyTail.CAPACITY) + "{\"usage\":7}");
        assertThat(tail.bytes().length).isLessThanOrEqualTo(BodyTail.CAPACITY);
        assertThat(kept(tail)).endsWith("{\"usage\":7}");
    }

    @Test
    void events_longStreamOfSmallEvents_holdsAboutTwoEvents() {
        BodyTail tail = BodyTail.ofEvents();
        String event = "data: " + "z".repeat(250) + "\n\n";
        for (int i = 0; i < 100_000; i++) {
            append(tail, event);
        }
        assertThat(tail.bytes()).hasSize(2 * event.length());
    }
}

package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.forward.EventWriter;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * What a tagged event stream's writer holds while it writes (docs/design.md §H20): a tagged event is a copy written
 * whole, and a client that takes nothing keeps that write, and the copy, until its send timeout, so the copy is counted
 * in the answer's memory for as long as it is written and given back after.
 */
class IdTaggingTest {
    private static final String TAG = "resp_east.1ef772aa..";

    @Test
    void aTaggedEventBeingWritten_itsCopyCountedInTheAnswersMemory_givenBackOnceWritten() throws Exception {
        String event = "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_a\","
                + "\"instructions\":\"" + "i".repeat(60_000) + "\"}}\n\n";
        byte[] bytes = event.getBytes(StandardCharsets.UTF_8);
        AtomicLong counted = new AtomicLong();
        List<Long> countedWhileWritten = new ArrayList<>();
        List<Integer> written = new ArrayList<>();
        // A client write that blocks: the count while it waits is what the relay holds meanwhile.
        OutputStream client = new OutputStream() {
            @Override
            public void write(int b) {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                countedWhileWritten.add(counted.get());
                written.add(len);
            }
        };
        EventWriter writer =
                new IdTagging(id -> TAG + id.substring("resp_".length())).events(client, counted::addAndGet);

        writer.accept(bytes, 0, bytes.length);
        writer.finish();

        int tagged = bytes.length + TAG.length() - "resp_".length();
        assertThat(written).containsExactly(tagged);
        assertThat(countedWhileWritten).containsExactly((long) tagged);
        assertThat(counted).hasValue(0);
    }
}

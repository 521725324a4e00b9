package grid.gateway.routing.keyer;

import static grid.gateway.routing.keyer.JsonText.arr;
import static grid.gateway.routing.keyer.JsonText.obj;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * "Keying a body takes about its own size in memory at most": bytes allocated by one {@code key} call, counted by
 * the JVM for this thread. The bounds are far from the measured values, and the JIT can only remove allocations,
 * so the test cannot flake on a faster or slower machine.
 */
class KeyerMemoryTest {
    private final PromptKeyer keyer = new PromptKeyer();

    private long allocatedWhileKeying(byte[] body) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        keyer.key(ApiDialect.CHAT_COMPLETIONS, body); // load classes first
        long before = threads.getCurrentThreadAllocatedBytes();
        PromptKeys keys = keyer.key(ApiDialect.CHAT_COMPLETIONS, body);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertThat(keys.isKeyed()).isTrue();
        return allocated;
    }

    @Test
    void key_fourMegabyteImage_allocatesNoCopyOfTheBody() {
        byte[] body = JsonText.bytes(obj(
                "model",
                "m",
                "messages",
                arr(obj(
                        "role",
                        "user",
                        "content",
                        arr(
                                obj("type", "text", "text", "what is this?"),
                                obj(
                                        "type",
                                        "image_url",
                                        "image_url",
                                        obj("url", "data:image/png;base64," + "QUJD".repeat(1 << 20))))))));
        assertThat(allocatedWhileKeying(body)).isLessThan(body.length / 16);
    }

    @Test
    void key_megabyteOfMessages_allocatesLessThanTheBody() {
        Object[] messages = new Object[2_000];
        for (int i = 0; i < messages.length; i++) {
            messages[i] = obj("role", i % 2 == 0 ? "user" : "assistant", "content", "word ".repeat(100));
        }
        byte[] body = JsonText.bytes(obj("model", "m", "messages", arr(messages)));
        assertThat(body.length).isGreaterThan(1_000_000);
        assertThat(allocatedWhileKeying(body)).isLessThan(body.length);
    }
}

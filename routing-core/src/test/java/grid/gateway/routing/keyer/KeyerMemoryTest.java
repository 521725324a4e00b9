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

    /** Allocated bytes while keying {@code body} as Chat Completions, keyed or not. */
    private long allocated(byte[] body) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        keyer.key(ApiDialect.CHAT_COMPLETIONS, body);
        long before = threads.getCurrentThreadAllocatedBytes();
        keyer.key(ApiDialect.CHAT_COMPLETIONS, body);
        return threads.getCurrentThreadAllocatedBytes() - before;
    }

    private static final String HEAD = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]";

    /** {@code HEAD}, then {@code member} repeated to about {@code size} bytes, then the closing brace. */
    private static byte[] repeated(String member, int size) {
        StringBuilder text = new StringBuilder(size + 64).append(HEAD);
        for (int i = 0; text.length() < size; i++) {
            text.append(',').append(member.replace("#", Integer.toString(i)));
        }
        return text.append('}').toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Test
    void key_millionsOfTinyRootMembers_allocatesAFractionOfTheBody() {
        // Recording 16 bytes of offsets a root member would hold about 200 MB for 32 MiB of tiny members.
        byte[] distinct = repeated("\"k#\":1", 4 << 20);
        byte[] same = repeated("\"k\":1", 4 << 20);
        byte[] escaped = repeated("\"\\u006b#\":1", 4 << 20);
        for (byte[] body : new byte[][] {distinct, same, escaped}) {
            assertThat(allocated(body)).isLessThan(body.length / 8);
        }
    }

    @Test
    void key_manyTinyMembersInsideAMessage_allocatesAFractionOfTheBody() {
        StringBuilder text = new StringBuilder("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"");
        for (int i = 0; text.length() < 4 << 20; i++) {
            text.append(",\"k").append(i).append("\":1");
        }
        byte[] body = text.append("}]}").toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(allocated(body)).isLessThan(body.length / 8);
    }

    @Test
    void key_denseToolLists_allocateAtMostTheBodyPlusASmallConstant() {
        for (String tool : new String[] {"{}", "{\"a\":[1,1,1,1,1,1,1,1]}", "{\"type\":\"function\"}"}) {
            for (int size : new int[] {16 * 1024 - 64, 4 << 20}) {
                StringBuilder tools = new StringBuilder("[");
                while (tools.length() < size - tool.length() - 2) {
                    tools.append(tools.length() > 1 ? "," : "").append(tool);
                }
                byte[] body = (HEAD + ",\"tools\":" + tools.append(']') + "}")
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8);
                assertThat(allocated(body)).as(tool + " " + size).isLessThan(body.length + (1L << 20));
            }
        }
    }

    @Test
    void key_deepArraysAndManyMediaParts_allocateAtMostAboutTheBody() {
        String deep = "[".repeat(250) + "]".repeat(250);
        byte[] deepArrays = repeated("\"d#\":" + deep, 4 << 20);
        StringBuilder parts = new StringBuilder("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":[");
        for (int i = 0; parts.length() < 4 << 20; i++) {
            parts.append(i == 0 ? "" : ",")
                    .append("{\"type\":\"image_url\",\"image_url\":{\"url\":\"u")
                    .append(i)
                    .append("\"}}");
        }
        byte[] media = parts.append("]}]}").toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(allocated(deepArrays)).as("deep arrays").isLessThan(deepArrays.length);
        // Media parts: each part visited costs its small member table and digest, all short-lived garbage; measured
        // 1.45 times the body in total allocation (not held at once), so the bound here is twice the body.
        assertThat(allocated(media)).as("media parts").isLessThan(2L * media.length);
    }
}

package grid.gateway.app.sharing;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ProtocolException;
import java.net.Socket;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The check on a Redis connection's replies, over byte sequences read as a socket hands them on: in any pieces, legal
 * replies pass unchanged and end where they end; a reply announcing more than the bounds allow is refused before the
 * client has read the piece that announced it.
 */
class ReplyBoundsTest {
    /** An XREAD reply (RESP2) whose entry's field values hold what looks like headers: bytes to skip, not read. */
    private static final String XREAD = "*1\r\n*2\r\n" + bulk("memo") + "*1\r\n*2\r\n" + bulk("1-23") + "*4\r\n"
            + bulk("k") + bulk("\r\n$999999999\r\n") + bulk("x") + bulk("*2147483647\r\n:1\r\n");

    private static final String[] LEGAL = {
        "+OK\r\n",
        "+PONG\r\n",
        "-ERR unknown command 'X', with args beginning with:\r\n",
        ":1\r\n",
        "$-1\r\n",
        "*-1\r\n",
        "$0\r\n\r\n",
        "*0\r\n",
        "$4\r\n1-23\r\n",
        XREAD,
        "$7\r\na\rb\nc\r\n\r\n", // CR and LF inside a bulk string
        "+a\rb\r\n", // a CR alone inside a line
        "%1\r\n+a\r\n:1\r\n",
        "~2\r\n#t\r\n,1.5\r\n",
        ">2\r\n+invalidate\r\n_\r\n",
        "=7\r\ntxt:abc\r\n",
        "!5\r\nERR x\r\n",
        "(12345678901234567890\r\n",
        "|1\r\n+key\r\n+val\r\n*1\r\n:1\r\n", // an attribute, then the reply it describes
        "*2\r\n|1\r\n+k\r\n+v\r\n:1\r\n:2\r\n", // an attribute inside an array is no element of it
        "$0003\r\nabc\r\n",
    };

    static Stream<String> legal() {
        return Stream.concat(Arrays.stream(LEGAL), Stream.of(String.join("", LEGAL)));
    }

    @ParameterizedTest
    @MethodSource("legal")
    void legalReplies_passUnchanged_splitAtEveryBoundary(String reply) throws IOException {
        byte[] bytes = reply.getBytes(ISO_8859_1);
        for (int split = 0; split <= bytes.length; split++) {
            assertPasses(bytes, split, Integer.MAX_VALUE);
        }
        assertPasses(bytes, 1, 1, 1); // a byte a read
    }

    @Test
    void repliesAtTheBounds_pass() throws IOException {
        byte[] bulk = bulkOfLength(ReplyBounds.MAX_BULK);
        assertPasses(bulk, 3, 4096, bulk.length / 2);
        byte[] elements = ("*" + ReplyBounds.MAX_ELEMENTS + "\r\n" + ":1\r\n".repeat(ReplyBounds.MAX_ELEMENTS))
                .getBytes(ISO_8859_1);
        assertPasses(elements, 7, 1000);
        byte[] deep = ("*1\r\n".repeat(ReplyBounds.MAX_DEPTH) + ":1\r\n").getBytes(ISO_8859_1);
        assertPasses(deep, 1);
        // A line of MAX_LINE bytes with its CR.
        byte[] line = ("-" + "e".repeat(ReplyBounds.MAX_LINE - 1) + "\r\n").getBytes(ISO_8859_1);
        assertPasses(line, 100);
    }

    static Stream<Arguments> refused() {
        return Stream.of(
                Arguments.of("$2000000000\r\nabc", "a bulk string of more than 8388608 bytes"),
                Arguments.of("$" + (ReplyBounds.MAX_BULK + 1) + "\r\n", "a bulk string of more than"),
                Arguments.of("=9999999999999999999999\r\n", "a bulk string of more than"),
                Arguments.of("!8388609\r\n", "a bulk string of more than"),
                Arguments.of("*2147483647\r\n", "an aggregate of more than 65536 elements"),
                Arguments.of("*1\r\n*65537\r\n", "an aggregate of more than"),
                Arguments.of("%65537\r\n", "an aggregate of more than"),
                Arguments.of("~65537\r\n", "an aggregate of more than"),
                Arguments.of(">65537\r\n", "an aggregate of more than"),
                Arguments.of("|65537\r\n", "an aggregate of more than"),
                Arguments.of("*1\r\n".repeat(ReplyBounds.MAX_DEPTH + 1), "nested more than 16 deep"),
                Arguments.of("+" + "a".repeat(ReplyBounds.MAX_LINE + 1), "a line longer than 65536 bytes"),
                Arguments.of("$" + "0".repeat(ReplyBounds.MAX_LINE + 1), "a line longer than"),
                Arguments.of("$-2\r\n", "a negative length other than -1"),
                Arguments.of("*-2\r\n", "a negative length other than -1"),
                Arguments.of("$-0\r\n", "a negative length other than -1"),
                Arguments.of("*-2147483648\r\n", "a negative length other than -1"),
                Arguments.of("%%%garbage\r\n", "a length that is not a number"),
                Arguments.of("$\r\n", "a length that is not a number"),
                Arguments.of("$1-\r\n", "a length that is not a number"),
                Arguments.of("$1\rx", "a length not ended by CRLF"),
                Arguments.of("+OK\r\nhello\r\n", "a reply of unknown type 0x68"),
                Arguments.of("$3\r\nabc\r\n\r\n", "a reply of unknown type 0xd"));
    }

    @ParameterizedTest
    @MethodSource("refused")
    void repliesBeyondTheBounds_areRefused_splitAtEveryBoundary(String reply, String why) {
        byte[] bytes = reply.getBytes(ISO_8859_1);
        int step = Math.max(1, bytes.length / 64); // long lines: every 64th boundary
        for (int split = 0; split <= bytes.length; split += step) {
            int at = split;
            assertThatThrownBy(() -> read(bytes, at, Integer.MAX_VALUE))
                    .isInstanceOf(ProtocolException.class)
                    .hasMessageContaining(why);
        }
    }

    @Test
    void aRefusalIsFinal_andComesBeforeThePieceIsHandedOn() throws IOException {
        byte[] bytes = "+OK\r\n$2000000000\r\n".getBytes(ISO_8859_1);
        ReplyDeadline replies = new ReplyDeadline(new Socket(), 1_000);
        byte[] commands = "*1\r\n$4\r\nPING\r\n*1\r\n$4\r\nPING\r\n".getBytes(ISO_8859_1);
        replies.written(commands, 0, commands.length); // two replies owed
        InputStream checked = new BoundedSocket.Checked(new Pieces(bytes, 5, 64), replies);
        byte[] into = new byte[64];
        assertThat(checked.read(into, 0, into.length)).isEqualTo(5); // +OK
        Arrays.fill(into, (byte) 0);
        assertThatThrownBy(() -> checked.read(into, 0, into.length)).isInstanceOf(ProtocolException.class);
        assertThatThrownBy(() -> checked.read(into, 0, into.length))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("Redis reply refused: a bulk string of more than 8388608 bytes");
        ReplyBounds bounds = new ReplyBounds();
        assertThatThrownBy(() -> bounds.scan(new byte[] {'*', '-', '5'}, 0, 3)).isInstanceOf(ProtocolException.class);
        assertThatThrownBy(() -> bounds.scan("+OK\r\n".getBytes(ISO_8859_1), 0, 5))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("Redis reply refused: a negative length other than -1");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5})
    void aBulkStringsLengthIsRefusedAtTheDigitBeyondTheBound(int piece) {
        // No CRLF yet: refused on the digits alone, so nothing waits for more of them.
        byte[] bytes = "$2000000000".getBytes(ISO_8859_1);
        assertThatThrownBy(() -> read(bytes, piece)).isInstanceOf(ProtocolException.class);
    }

    @Test
    void aReplyOverTheWholeBound_isRefused_thoughEachPartIsWithinItsOwn() throws IOException {
        ReplyBounds bounds = new ReplyBounds();
        byte[] value = bulkOfLength(ReplyBounds.MAX_BULK);
        long bulks = ReplyBounds.MAX_REPLY / value.length + 1;
        scan(bounds, "*" + bulks + "\r\n");
        for (int i = 1; i < bulks; i++) {
            bounds.scan(value, 0, value.length);
        }
        assertThatThrownBy(() -> bounds.scan(value, 0, value.length))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("a reply of more than " + ReplyBounds.MAX_REPLY + " bytes")
                .satisfies(refused -> assertThat(ReplyBounds.tooLong(new IOException(refused)))
                        .isTrue());
        assertThat(ReplyBounds.tooLong(new ProtocolException("Redis reply refused: a bulk string of more than 8")))
                .isFalse();
    }

    @Test
    void repliesEachUnderTheWholeBound_passOneAfterAnother() throws IOException {
        ReplyBounds bounds = new ReplyBounds();
        byte[] value = bulkOfLength(ReplyBounds.MAX_BULK);
        long bulks = ReplyBounds.MAX_REPLY / value.length;
        for (int reply = 0; reply < 3; reply++) {
            scan(bounds, "*" + bulks + "\r\n");
            for (int i = 0; i < bulks; i++) {
                bounds.scan(value, 0, value.length);
            }
            assertThat(bounds.betweenReplies()).isTrue();
        }
    }

    private static void scan(ReplyBounds bounds, String text) throws ProtocolException {
        byte[] bytes = text.getBytes(ISO_8859_1);
        bounds.scan(bytes, 0, bytes.length);
    }

    private static void assertPasses(byte[] bytes, int... pieces) throws IOException {
        ReplyBounds bounds = new ReplyBounds();
        assertThat(read(bytes, bounds, pieces)).isEqualTo(bytes);
        assertThat(bounds.betweenReplies()).as("ends between replies").isTrue();
    }

    private static byte[] read(byte[] bytes, int... pieces) throws IOException {
        return read(bytes, new ReplyBounds(), pieces);
    }

    /** What a client reads of {@code bytes}, arriving in {@code pieces} (the last size repeats), checked. */
    private static byte[] read(byte[] bytes, ReplyBounds bounds, int... pieces) throws IOException {
        InputStream in = new Pieces(bytes, pieces);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        int n;
        while ((n = in.read(buffer, 0, buffer.length)) >= 0) {
            bounds.scan(buffer, 0, n);
            out.write(buffer, 0, n);
        }
        return out.toByteArray();
    }

    /** {@code value} as a bulk string. */
    private static String bulk(String value) {
        return "$" + value.length() + "\r\n" + value + "\r\n";
    }

    private static byte[] bulkOfLength(int length) {
        byte[] header = ("$" + length + "\r\n").getBytes(ISO_8859_1);
        byte[] bytes = new byte[header.length + length + 2];
        System.arraycopy(header, 0, bytes, 0, header.length);
        Arrays.fill(bytes, header.length, header.length + length, (byte) '$');
        bytes[bytes.length - 2] = '\r';
        bytes[bytes.length - 1] = '\n';
        return bytes;
    }

    /** {@code bytes} as a socket may hand them on: at most {@code pieces[i]} bytes a read (the last size repeats). */
    private static final class Pieces extends InputStream {
        private final byte[] bytes;
        private final int[] pieces;
        private int at;
        private int reads;

        Pieces(byte[] bytes, int... pieces) {
            this.bytes = bytes;
            this.pieces = pieces;
        }

        @Override
        public int read() {
            return at < bytes.length ? bytes[at++] & 0xff : -1;
        }

        @Override
        public int read(byte[] into, int offset, int length) {
            if (at == bytes.length) {
                return -1;
            }
            int piece = pieces[Math.min(reads++, pieces.length - 1)];
            // A piece of 0 (a split at the start) hands on nothing of its own: the next piece starts there.
            int n = Math.min(Math.min(length, piece == 0 ? bytes.length : piece), bytes.length - at);
            System.arraycopy(bytes, at, into, offset, n);
            at += n;
            return n;
        }
    }

    @Test
    void aValueOverItsBound_refusedForItsSize_carryingTheEntrysId() {
        ReplyBounds bounds = new ReplyBounds();
        String head = "*1\r\n*2\r\n" + bulk("memo") + "*1\r\n*2\r\n" + bulk("1700000000000-7") + "*2\r\n" + bulk("k")
                + "$" + (ReplyBounds.MAX_BULK + 1) + "\r\n";
        byte[] bytes = head.getBytes(ISO_8859_1);

        assertThatThrownBy(() -> bounds.scan(bytes, 0, bytes.length))
                .isInstanceOfSatisfying(OversizedReply.class, refused -> {
                    assertThat(refused.whole()).isFalse();
                    assertThat(refused.secondBulk()).contains("1700000000000-7");
                });
    }

    @Test
    void oneEntryOverTheWholeReplysBound_refusedAsTooLong_carryingItsId() throws ProtocolException {
        ReplyBounds bounds = new ReplyBounds();
        int values = (int) (ReplyBounds.MAX_REPLY / ReplyBounds.MAX_BULK) + 1;
        byte[] head = ("*1\r\n*2\r\n" + bulk("memo") + "*1\r\n*2\r\n" + bulk("9-1") + "*" + values + "\r\n")
                .getBytes(ISO_8859_1);
        byte[] value = ("$" + ReplyBounds.MAX_BULK + "\r\n").getBytes(ISO_8859_1);
        byte[] payload = new byte[ReplyBounds.MAX_BULK + 2];
        payload[payload.length - 2] = '\r';
        payload[payload.length - 1] = '\n';
        bounds.scan(head, 0, head.length);

        ProtocolException refused = null;
        for (int i = 0; i < values && refused == null; i++) {
            try {
                bounds.scan(value, 0, value.length);
                bounds.scan(payload, 0, payload.length);
            } catch (ProtocolException e) {
                refused = e;
            }
        }

        assertThat(refused).isInstanceOfSatisfying(OversizedReply.class, oversized -> {
            assertThat(oversized.whole()).isTrue();
            assertThat(oversized.secondBulk()).contains("9-1");
        });
        assertThat(ReplyBounds.tooLong(refused)).isTrue();
    }

    @Test
    void aSecondBulkLongerThanAnId_notCarried() {
        ReplyBounds bounds = new ReplyBounds();
        byte[] bytes = ("*3\r\n" + bulk("memo") + bulk("x".repeat(ReplyBounds.MAX_KEPT + 1)) + "*"
                        + (ReplyBounds.MAX_ELEMENTS + 1) + "\r\n")
                .getBytes(ISO_8859_1);

        assertThatThrownBy(() -> bounds.scan(bytes, 0, bytes.length))
                .isInstanceOfSatisfying(
                        OversizedReply.class,
                        refused -> assertThat(refused.secondBulk()).isEmpty());
    }

    @Test
    void ended_countsTheRepliesThatAnswerACommand_notPushesNorAttributes() throws IOException {
        ReplyBounds bounds = new ReplyBounds();
        scan(bounds, "+OK\r\n>2\r\n$7\r\nmessage\r\n$1\r\nx\r\n|1\r\n+a\r\n+b\r\n:2\r\n$-1\r\n*2\r\n:1\r\n");

        assertThat(bounds.ended())
                .as("+OK, :2 and the null bulk; the array is not whole")
                .isEqualTo(3);
        scan(bounds, ":2\r\n");
        assertThat(bounds.ended()).isEqualTo(4);
    }
}

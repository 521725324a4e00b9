package grid.gateway.app.sharing;

import static java.nio.charset.StandardCharsets.UTF_8;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.tag.ClusterDigest;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.StreamEntryID;

/**
 * One confirmation, drop or send as it travels in the stream. Its fields, all short strings:
 *
 * <pre>
 *   r   the publishing replica's random id (a replica skips its own)
 *   s   the cluster's site name          c   the cluster's 8-character digest (as in stored-id tags)
 *   o   "c" confirm, "d" drop, "p" sent  t   when it was confirmed or sent, wall clock, epoch milliseconds
 *   k   the block keys: 8 bytes each, big-endian, base64          (o = c or d)
 *   w   the prompt's uncached prefill, whole microseconds, > 0    (o = p, sharing.share_backlog; no k)
 * </pre>
 *
 * An acknowledgement ({@code sharing.confirm_wait_ms}; {@link PeerAcks}) has only r, {@code o = a}, t, and {@code i}:
 * the stream id up to which the replica has applied its peers' entries.
 *
 * Block keys are 64-bit hashes of prompt blocks: no prompt text and no cluster name leaves the replica. A replica
 * older than the "p" entries finds an unknown field in them and counts them as malformed, applying nothing.
 *
 * <p>Thread-safe (immutable; the keys array is never handed out for writing).
 *
 * @param replica the publishing replica's id
 * @param site the cluster's site
 * @param digest the cluster's digest
 * @param confirmed confirm ({@code true}) or drop
 * @param atMillis the confirmation time, epoch milliseconds
 * @param keys the block keys, in request order (none in a send)
 * @param prefillMicros a send's uncached prefill, microseconds; 0 in a confirmation or drop
 */
record SharedEntry(
        String replica, String site, String digest, boolean confirmed, long atMillis, long[] keys, long prefillMicros) {
    /** More keys than any request body the gateway accepts can produce: beyond is bad data. */
    static final int MAX_KEYS = 1 << 16;

    /** The fields, in the order {@link #parseRaw} keeps their values: a send has w where the others have k. */
    private static final String FIELDS = "rscotk";

    private static final String SEND_FIELDS = "rscotw";
    /** An acknowledgement's fields, in the order {@link #parseAck} keeps their values. */
    private static final String ACK_FIELDS = "roit";
    /** A Redis stream id: milliseconds, a dash, a sequence number (each fits a long). */
    private static final Pattern STREAM_ID = Pattern.compile("\\d{1,18}-\\d{1,18}");
    /** More microseconds than any prompt's prefill (about 11 days): beyond is bad data. */
    private static final int MAX_MICROS_DIGITS = 12;

    private static final String ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    private static final boolean[] HEX = allowed("0123456789abcdef");
    private static final boolean[] SITE = allowed(ALNUM + "._-");
    private static final boolean[] DIGEST = allowed(ALNUM + "_-");
    private static final boolean[] DIGITS = allowed("0123456789");
    private static final VarHandle BIG_ENDIAN =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    /** The entry for {@code cluster}. */
    static SharedEntry of(String replica, ClusterId cluster, boolean confirmed, long atMillis, long[] keys) {
        return new SharedEntry(
                replica, cluster.site().value(), ClusterDigest.of(cluster.name()), confirmed, atMillis, keys, 0);
    }

    /** The send of a prompt of {@code prefillSeconds} uncached prefill to {@code cluster} (at least 1 µs). */
    static SharedEntry sent(String replica, ClusterId cluster, long atMillis, double prefillSeconds) {
        long micros = Math.max(1, Math.min(999_999_999_999L, Math.round(prefillSeconds * 1e6)));
        return new SharedEntry(
                replica, cluster.site().value(), ClusterDigest.of(cluster.name()), true, atMillis, new long[0], micros);
    }

    /**
     * An acknowledgement: {@code replica} applied the stream up to {@code id}.
     *
     * @param replica the acknowledging replica
     * @param id the stream id applied up to
     */
    record Ack(String replica, StreamEntryID id) {}

    /** The fields of {@code replica}'s acknowledgement that it applied the stream up to {@code id}. */
    static Map<String, String> ackFields(String replica, StreamEntryID id, long atMillis) {
        return Map.of("r", replica, "o", "a", "i", id.toString(), "t", Long.toString(atMillis));
    }

    /** Whether raw {@code fields} are an acknowledgement ({@code o = a}; checked before anything is decoded). */
    static boolean isAck(Map<byte[], byte[]> fields) {
        for (Map.Entry<byte[], byte[]> field : fields.entrySet()) {
            byte[] name = field.getKey();
            if (name.length == 1 && name[0] == 'o') {
                byte[] op = field.getValue();
                return op.length == 1 && op[0] == 'a';
            }
        }
        return false;
    }

    /** The acknowledgement in raw {@code fields}, or empty when they are not a well-formed one. */
    static Optional<Ack> parseAck(Map<byte[], byte[]> fields) {
        if (fields.size() != ACK_FIELDS.length()) {
            return Optional.empty();
        }
        byte[][] values = new byte[ACK_FIELDS.length()][];
        for (Map.Entry<byte[], byte[]> field : fields.entrySet()) {
            byte[] name = field.getKey();
            int at = name.length == 1 ? ACK_FIELDS.indexOf(name[0]) : -1;
            if (at < 0 || values[at] != null) {
                return Optional.empty();
            }
            values[at] = field.getValue();
        }
        String id = latin1(values[2]);
        if (!matches(values[0], 32, HEX)
                || values[1].length != 1
                || values[1][0] != 'a'
                || !matches(values[3], 18, DIGITS)
                || !STREAM_ID.matcher(id).matches()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Ack(latin1(values[0]), new StreamEntryID(id)));
        } catch (RuntimeException badNumber) {
            return Optional.empty();
        }
    }

    /** Whether this is a send ({@code o = p}), not a confirmation or drop. */
    boolean isSend() {
        return prefillMicros > 0;
    }

    /** A send's prefill, seconds. */
    double prefillSeconds() {
        return prefillMicros / 1e6;
    }

    /** This confirmation without its first {@code from} keys (the peers have them): the new tail. */
    SharedEntry tail(int from) {
        return new SharedEntry(
                replica, site, digest, confirmed, atMillis, Arrays.copyOfRange(keys, from, keys.length), 0);
    }

    /** Where a cluster is looked up: site and digest. */
    String clusterKey() {
        return clusterKey(site, digest);
    }

    static String clusterKey(String site, String digest) {
        return site + "/" + digest;
    }

    /** The stream fields. */
    Map<String, String> fields() {
        if (isSend()) {
            return fields("p", "w", Long.toString(prefillMicros));
        }
        ByteBuffer bytes = ByteBuffer.allocate(keys.length * Long.BYTES);
        for (long key : keys) {
            bytes.putLong(key);
        }
        return fields(confirmed ? "c" : "d", "k", Base64.getEncoder().encodeToString(bytes.array()));
    }

    /** The fields every entry has, then its operation's payload: the keys of a confirmation or drop, a send's work. */
    private Map<String, String> fields(String op, String payloadField, String payload) {
        return Map.of(
                "r", replica, "s", site, "c", digest, "o", op, "t", Long.toString(atMillis), payloadField, payload);
    }

    /** The entry in {@code fields}, or empty when they are not a well-formed entry (bad data is never applied). */
    static Optional<SharedEntry> parse(Map<String, String> fields) {
        Map<byte[], byte[]> raw = new IdentityHashMap<>(); // byte[] keys: each field its own
        fields.forEach((name, value) -> raw.put(name.getBytes(UTF_8), value.getBytes(UTF_8)));
        return parseRaw(raw);
    }

    /**
     * The entry in {@code fields} as Redis returns them (bytes, so no string is made of the keys: they are decoded
     * from base64 straight into longs), or empty when they are not a well-formed entry (bad data is never applied).
     */
    static Optional<SharedEntry> parseRaw(Map<byte[], byte[]> fields) {
        if (fields.size() != FIELDS.length()) {
            return Optional.empty();
        }
        boolean send = fields.keySet().stream().anyMatch(name -> name.length == 1 && name[0] == 'w');
        String names = send ? SEND_FIELDS : FIELDS;
        byte[][] values = new byte[names.length()][];
        for (Map.Entry<byte[], byte[]> field : fields.entrySet()) {
            byte[] name = field.getKey();
            int at = name.length == 1 ? names.indexOf(name[0]) : -1;
            if (at < 0 || values[at] != null) {
                return Optional.empty();
            }
            values[at] = field.getValue();
        }
        byte[] replica = values[0];
        byte[] site = values[1];
        byte[] digest = values[2];
        byte[] op = values[3];
        byte[] at = values[4];
        long[] keys = send ? new long[0] : keys(values[5]);
        long micros = send && matches(values[5], MAX_MICROS_DIGITS, DIGITS) ? number(values[5]) : 0;
        if (!matches(replica, 32, HEX)
                || !matches(site, 128, SITE)
                || digest.length != ClusterDigest.LENGTH
                || !matches(digest, ClusterDigest.LENGTH, DIGEST)
                || op.length != 1
                || (send ? op[0] != 'p' || micros <= 0 : op[0] != 'c' && op[0] != 'd')
                || !matches(at, 18, DIGITS)
                || keys == null) {
            return Optional.empty();
        }
        return Optional.of(
                new SharedEntry(latin1(replica), latin1(site), latin1(digest), op[0] != 'd', number(at), keys, micros));
    }

    /** The number in ASCII {@code digits} (checked: at most 18 digits). */
    private static long number(byte[] digits) {
        long value = 0;
        for (byte digit : digits) {
            value = value * 10 + (digit - '0');
        }
        return value;
    }

    /** The cluster key ({@link #clusterKey()}) in raw {@code fields}, unchecked; empty when a part is missing. */
    static String clusterKey(Map<byte[], byte[]> fields) {
        byte[] site = null;
        byte[] digest = null;
        for (Map.Entry<byte[], byte[]> field : fields.entrySet()) {
            byte[] name = field.getKey();
            if (name.length == 1 && name[0] == 's') {
                site = field.getValue();
            } else if (name.length == 1 && name[0] == 'c') {
                digest = field.getValue();
            }
        }
        return site == null || digest == null ? "" : clusterKey(latin1(site), latin1(digest));
    }

    /** Whether raw {@code fields} are a send ({@code o = p}; checked before anything is decoded). */
    static boolean isSend(Map<byte[], byte[]> fields) {
        for (Map.Entry<byte[], byte[]> field : fields.entrySet()) {
            byte[] name = field.getKey();
            if (name.length == 1 && name[0] == 'o') {
                byte[] op = field.getValue();
                return op.length == 1 && op[0] == 'p';
            }
        }
        return false;
    }

    /** Whether {@code fields} were published by {@code replica} (checked before the keys are decoded). */
    static boolean from(Map<byte[], byte[]> fields, byte[] replica) {
        for (Map.Entry<byte[], byte[]> field : fields.entrySet()) {
            byte[] name = field.getKey();
            if (name.length == 1 && name[0] == 'r') {
                return Arrays.equals(field.getValue(), replica);
            }
        }
        return false;
    }

    /** The keys in base64 {@code text}, or null when it is not 1 to {@link #MAX_KEYS} keys in base64. */
    private static long @Nullable [] keys(byte[] text) {
        if (text.length == 0 || text.length > (MAX_KEYS * Long.BYTES / 3 + 1) * 4) {
            return null;
        }
        byte[] raw;
        try {
            raw = Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            return null;
        }
        if (raw.length == 0 || raw.length % Long.BYTES != 0) {
            return null;
        }
        long[] keys = new long[raw.length / Long.BYTES];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = (long) BIG_ENDIAN.get(raw, i * Long.BYTES);
        }
        return keys;
    }

    private static boolean matches(byte[] value, int maxLength, boolean[] allowed) {
        if (value.length == 0 || value.length > maxLength) {
            return false;
        }
        for (byte b : value) {
            if (b < 0 || !allowed[b]) {
                return false;
            }
        }
        return true;
    }

    private static boolean[] allowed(String chars) {
        boolean[] allowed = new boolean[128];
        chars.chars().forEach(c -> allowed[c] = true);
        return allowed;
    }

    private static String latin1(byte[] ascii) {
        return new String(ascii, StandardCharsets.ISO_8859_1);
    }
}

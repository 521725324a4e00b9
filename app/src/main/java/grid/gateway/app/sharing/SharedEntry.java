package grid.gateway.app.sharing;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.tag.ClusterDigest;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One confirmation or drop as it travels in the stream. Its fields, all short strings:
 *
 * <pre>
 *   r   the publishing replica's random id (a replica skips its own)
 *   s   the cluster's site name          c   the cluster's 8-character digest (as in stored-id tags)
 *   o   "c" confirm, "d" drop            t   when it was confirmed, wall clock, epoch milliseconds
 *   k   the block keys: 8 bytes each, big-endian, base64
 * </pre>
 *
 * Block keys are 64-bit hashes of prompt blocks: no prompt text and no cluster name leaves the replica.
 *
 * <p>Thread-safe (immutable; the keys array is never handed out for writing).
 *
 * @param replica the publishing replica's id
 * @param site the cluster's site
 * @param digest the cluster's digest
 * @param confirmed confirm ({@code true}) or drop
 * @param atMillis the confirmation time, epoch milliseconds
 * @param keys the block keys, in request order
 */
record SharedEntry(String replica, String site, String digest, boolean confirmed, long atMillis, long[] keys) {
    /** More keys than any request body the gateway accepts can produce: beyond is bad data. */
    static final int MAX_KEYS = 1 << 16;

    private static final Pattern REPLICA = Pattern.compile("[0-9a-f]{1,32}");
    private static final Pattern SITE = Pattern.compile("[A-Za-z0-9._-]{1,128}");
    private static final Pattern MILLIS = Pattern.compile("\\d{1,18}");
    private static final Pattern DIGEST = Pattern.compile("[0-9A-Za-z_-]{" + ClusterDigest.LENGTH + "}");

    /** The entry for {@code cluster}. */
    static SharedEntry of(String replica, ClusterId cluster, boolean confirmed, long atMillis, long[] keys) {
        return new SharedEntry(
                replica, cluster.site().value(), ClusterDigest.of(cluster.name()), confirmed, atMillis, keys);
    }

    /** This confirmation without its first {@code from} keys (the peers have them): the new tail. */
    SharedEntry tail(int from) {
        return new SharedEntry(replica, site, digest, confirmed, atMillis, Arrays.copyOfRange(keys, from, keys.length));
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
        ByteBuffer bytes = ByteBuffer.allocate(keys.length * Long.BYTES);
        for (long key : keys) {
            bytes.putLong(key);
        }
        return Map.of(
                "r",
                replica,
                "s",
                site,
                "c",
                digest,
                "o",
                confirmed ? "c" : "d",
                "t",
                Long.toString(atMillis),
                "k",
                Base64.getEncoder().encodeToString(bytes.array()));
    }

    /** The entry in {@code fields}, or empty when they are not a well-formed entry (bad data is never applied). */
    static Optional<SharedEntry> parse(Map<String, String> fields) {
        String replica = fields.get("r");
        String site = fields.get("s");
        String digest = fields.get("c");
        String op = fields.get("o");
        String at = fields.get("t");
        String keys = fields.get("k");
        if (fields.size() != 6
                || replica == null
                || site == null
                || digest == null
                || op == null
                || at == null
                || keys == null) {
            return Optional.empty();
        }
        if (!REPLICA.matcher(replica).matches()
                || !SITE.matcher(site).matches()
                || !DIGEST.matcher(digest).matches()
                || !(op.equals("c") || op.equals("d"))
                || !MILLIS.matcher(at).matches()
                || keys.length() > (MAX_KEYS * Long.BYTES / 3 + 1) * 4) {
            return Optional.empty();
        }
        byte[] raw;
        try {
            raw = Base64.getDecoder().decode(keys);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        if (raw.length == 0 || raw.length % Long.BYTES != 0) {
            return Optional.empty();
        }
        long[] decoded = new long[raw.length / Long.BYTES];
        ByteBuffer.wrap(raw).asLongBuffer().get(decoded);
        return Optional.of(new SharedEntry(replica, site, digest, op.equals("c"), Long.parseLong(at), decoded));
    }
}

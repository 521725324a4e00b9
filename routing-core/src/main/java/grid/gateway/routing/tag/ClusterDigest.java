package grid.gateway.routing.tag;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The cluster part of a stored-id tag (docs/design.md §5): the first 8 lowercase hex digits of SHA-256 of the backend
 * cluster's name in UTF-8.
 *
 * <p>Stateless and thread-safe.
 */
public final class ClusterDigest {
    /** Hex digits in a digest. */
    public static final int LENGTH = 8;

    private ClusterDigest() {}

    /** The digest of a backend cluster's name. */
    public static String of(String clusterName) {
        requireNonNull(clusterName, "clusterName");
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(clusterName.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, LENGTH / 2);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}

package grid.gateway.conformance.outside;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * design.md §5's tag format computed from its text alone, with the JDK's SHA-256 and HMAC-SHA256 (none of the
 * gateway's classes): {@code <prefix><site>.<cluster>.<mac>.<id>}, {@code <cluster>} the first 8 lowercase hex digits
 * of SHA-256 of the cluster's name, {@code <mac>} the first 8 bytes in lowercase hex of HMAC-SHA256 of {@code
 * <site>.<cluster>} under the key's UTF-8 bytes.
 */
final class ExpectedTag {
    private ExpectedTag() {}

    static String digest(String clusterName) {
        try {
            byte[] sha = MessageDigest.getInstance("SHA-256").digest(clusterName.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(sha).substring(0, 8);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    static String mac(String key, String site, String clusterName) {
        try {
            Mac hmac = Mac.getInstance("HmacSHA256");
            hmac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            byte[] full = hmac.doFinal((site + "." + digest(clusterName)).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(full, 0, 8);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The tagged form of the engine id {@code engineId} ({@code resp_…} or {@code conv_…}) under {@code key}. */
    static String of(String engineId, String key, String site, String clusterName) {
        int underscore = engineId.indexOf('_');
        return engineId.substring(0, underscore + 1) + site + "." + digest(clusterName) + "."
                + mac(key, site, clusterName) + "." + engineId.substring(underscore + 1);
    }
}

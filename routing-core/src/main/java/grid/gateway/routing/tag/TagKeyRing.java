package grid.gateway.routing.tag;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The keys that sign and verify tag macs (docs/design.md §5): the first key signs, every key verifies, so a key can be rotated
 * by putting the incoming one first and dropping the outgoing one once no replica signs with it.
 *
 * <p>A mac is the first 8 bytes, as 16 lowercase hex digits, of HMAC-SHA256 under the key of the UTF-8 text
 * {@code <site>.<cluster>}. Without a key ({@link #none()}) the mac is empty and every well-formed tag verifies.
 * Verification compares in constant time and always tries every key, so its timing shows neither how much of a
 * mac was right nor which key matched.
 *
 * <p>Thread-safe (immutable): each key's {@link Mac} is initialised once and cloned before each use. Key bytes never
 * leave this class: not in {@link #toString()}, exceptions or logs.
 */
public final class TagKeyRing {
    /** The shortest key accepted, in UTF-8 bytes. */
    public static final int MIN_KEY_BYTES = 16;

    private static final String ALGORITHM = "HmacSHA256";
    private static final int MAC_BYTES = TagText.MAC_LENGTH / 2;
    private static final HexFormat HEX = HexFormat.of();

    // Never updated, only cloned before each use, so concurrent callers share no mutable Mac state.
    private final List<Mac> prototypes;

    private TagKeyRing(List<Mac> prototypes) {
        this.prototypes = List.copyOf(prototypes);
    }

    /** A ring with no key: tags carry an empty mac and any well-formed tag verifies. */
    public static TagKeyRing none() {
        return new TagKeyRing(List.of());
    }

    /**
     * The ring in a key file's text: every non-empty line, stripped of surrounding white space, is one key as its
     * UTF-8 bytes; the first such line signs.
     *
     * @throws IllegalArgumentException if a key is shorter than {@value #MIN_KEY_BYTES} bytes (naming its line, not
     *     its bytes) or the text holds no key
     */
    public static TagKeyRing parse(String fileContent) {
        requireNonNull(fileContent, "fileContent");
        List<Mac> prototypes = new ArrayList<>();
        int lineNumber = 0;
        for (String line : fileContent.lines().toList()) {
            lineNumber++;
            String key = line.strip();
            if (key.isEmpty()) {
                continue;
            }
            byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
            try {
                if (bytes.length < MIN_KEY_BYTES) {
                    throw new IllegalArgumentException("tag key file line " + lineNumber
                            + ": key is shorter than " + MIN_KEY_BYTES + " bytes (expected: at least "
                            + MIN_KEY_BYTES + ")");
                }
                prototypes.add(prototype(bytes));
            } finally {
                Arrays.fill(bytes, (byte) 0);
            }
        }
        if (prototypes.isEmpty()) {
            throw new IllegalArgumentException("tag key file holds no key (expected: at least one non-empty line)");
        }
        return new TagKeyRing(prototypes);
    }

    /** Whether the ring holds a key, so that tags are signed and verified. */
    public boolean hasKey() {
        return !prototypes.isEmpty();
    }

    /** How many keys verify; the first of them signs. */
    public int keyCount() {
        return prototypes.size();
    }

    /** The mac for a tag naming {@code site} and {@code clusterDigest}: empty without a key. */
    public String sign(String site, String clusterDigest) {
        requireNonNull(site, "site");
        requireNonNull(clusterDigest, "clusterDigest");
        if (prototypes.isEmpty()) {
            return "";
        }
        return HEX.formatHex(mac(prototypes.getFirst(), message(site, clusterDigest)), 0, MAC_BYTES);
    }

    /** Whether {@code id}'s mac verifies under some key; always true without a key. */
    public boolean verify(TaggedId id) {
        requireNonNull(id, "id");
        return verify(id.site(), id.clusterDigest(), id.mac());
    }

    /**
     * Whether {@code mac} is what some key gives for {@code site} and {@code clusterDigest}; always true without a
     * key. A mac of the wrong length, or in upper case, is false.
     */
    public boolean verify(String site, String clusterDigest, String mac) {
        requireNonNull(site, "site");
        requireNonNull(clusterDigest, "clusterDigest");
        requireNonNull(mac, "mac");
        if (prototypes.isEmpty()) {
            return true;
        }
        if (mac.length() != TagText.MAC_LENGTH) {
            return false;
        }
        byte[] given = mac.getBytes(StandardCharsets.US_ASCII);
        byte[] message = message(site, clusterDigest);
        boolean matched = false;
        for (Mac prototype : prototypes) {
            byte[] expected =
                    HEX.formatHex(mac(prototype, message), 0, MAC_BYTES).getBytes(StandardCharsets.US_ASCII);
            // Non-short-circuit: every key is tried whichever matched.
            matched |= MessageDigest.isEqual(expected, given);
        }
        return matched;
    }

    @Override
    public String toString() {
        return "TagKeyRing[keys=" + prototypes.size() + "]";
    }

    private static byte[] message(String site, String clusterDigest) {
        return (site + '.' + clusterDigest).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] mac(Mac prototype, byte[] message) {
        try {
            Mac mac = (Mac) prototype.clone();
            return mac.doFinal(message);
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException("the " + ALGORITHM + " Mac was cloneable when the ring was built", e);
        }
    }

    private static Mac prototype(byte[] key) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(key, ALGORITHM));
            // Fails here, at load, rather than on the first request, on a provider whose Mac cannot be cloned.
            var unused = mac.clone();
            return mac;
        } catch (GeneralSecurityException | CloneNotSupportedException e) {
            // The cause names the algorithm or provider, never the key.
            throw new IllegalStateException("cannot initialise " + ALGORITHM + " for a tag key", e);
        }
    }
}

package grid.gateway.routing.tag;

import static java.util.Objects.requireNonNull;

/**
 * A stored id as the gateway hands it out (docs/design.md §5), {@code <kind><site>.<cluster>.<mac>.<id>}, taken apart: the
 * site and backend cluster that stored the object, the mac over them, and the engine's own id.
 *
 * <p>Thread-safe (immutable). Invariants: every part obeys the tag's character rules and the whole tag fits in 512
 * chars, so every {@code TaggedId} formats to a tag that {@link TagCodec#parse} reads back to an equal one. Nothing
 * here is secret: the mac is public, so {@link #toString()} shows every part.
 *
 * @param kind response or conversation
 * @param site the site's name, a DNS-1123 label
 * @param clusterDigest the backend cluster's {@link ClusterDigest}: 8 lowercase hex digits
 * @param mac empty without a key, else 16 lowercase hex digits
 * @param engineId the engine's id, with its {@code resp_} or {@code conv_} prefix
 */
public record TaggedId(IdKind kind, String site, String clusterDigest, String mac, String engineId) {

    /** Refuses a part that breaks the tag's rules; messages name the site and digest but never the mac or id. */
    public TaggedId {
        requireNonNull(kind, "kind");
        requireNonNull(site, "site");
        requireNonNull(clusterDigest, "clusterDigest");
        requireNonNull(mac, "mac");
        requireNonNull(engineId, "engineId");
        if (!TagText.isSiteLabel(site, 0, site.length())) {
            throw new IllegalArgumentException("site \"" + site + "\" is not a DNS-1123 label");
        }
        if (!TagText.isLowerHex(clusterDigest, 0, clusterDigest.length(), ClusterDigest.LENGTH)) {
            throw new IllegalArgumentException("cluster digest \"" + clusterDigest + "\" is not " + ClusterDigest.LENGTH
                    + " lowercase hex digits");
        }
        if (!TagText.isMac(mac, 0, mac.length())) {
            throw new IllegalArgumentException(
                    "mac is neither empty nor " + TagText.MAC_LENGTH + " lowercase hex digits");
        }
        checkEngineId(kind, engineId);
        // The engine id brings the prefix; three dots separate the four parts.
        int length = engineId.length() + site.length() + clusterDigest.length() + mac.length() + 3;
        if (length > TagText.MAX_LENGTH) {
            throw new IllegalArgumentException(
                    "tag would be " + length + " chars (expected: at most " + TagText.MAX_LENGTH + ")");
        }
    }

    /** The engine's id without its prefix: the tag's last part. */
    public String bareId() {
        return engineId.substring(kind.prefix().length());
    }

    private static void checkEngineId(IdKind kind, String engineId) {
        if (!engineId.startsWith(kind.prefix())) {
            throw new IllegalArgumentException("engine id does not start with \"" + kind.prefix() + "\"");
        }
        if (engineId.indexOf('.', kind.prefix().length()) >= 0) {
            throw new IllegalArgumentException("engine id contains '.', which would end a tag part");
        }
        if (!TagText.isIdBody(engineId, kind.prefix().length(), engineId.length())) {
            throw new IllegalArgumentException(
                    "engine id after \"" + kind.prefix() + "\" is empty or holds a character outside A-Z a-z 0-9 _ -");
        }
    }
}

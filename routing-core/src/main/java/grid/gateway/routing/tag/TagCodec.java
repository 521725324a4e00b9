package grid.gateway.routing.tag;

import static java.util.Objects.requireNonNull;

import java.util.Optional;

/**
 * Formats, parses and strips stored-id tags (docs/design.md §5): {@code resp_<site>.<cluster>.<mac>.<id>} and
 * {@code conv_<site>.<cluster>.<mac>.<id>}, where {@code <id>} is the engine's id without its prefix.
 *
 * <pre>
 *   engine id  resp_abc123 ──format(RESP, "east", "1ef772aa", mac)──> resp_east.1ef772aa.&lt;mac&gt;.abc123
 *   tag        resp_east.1ef772aa.&lt;mac&gt;.abc123 ──parse──> Tagged(TaggedId) ──strip──> resp_abc123
 * </pre>
 *
 * <p>Stateless and thread-safe. {@link #parse} reads attacker input: it refuses anything over 512 chars before
 * looking at it, then makes one forward pass with no regular expression, allocates only for a well-formed tag, and
 * never throws. {@link #format} refuses exactly what {@link #parse} would not read back, so every tag the gateway
 * hands out parses to the id it was made from.
 */
public final class TagCodec {
    private static final TagParse UNTAGGED = new TagParse.Untagged();
    private static final TagParse MALFORMED = new TagParse.Malformed();
    /** A character every id body may hold: the body of the shortest id. */
    private static final char ID_CHARACTER = '0';

    /** Creates a codec; it holds no state, so one serves every request. */
    public TagCodec() {}

    /**
     * The tag for {@code engineId}, stored at {@code site} in the cluster whose digest is {@code clusterDigest}.
     *
     * @param mac the key ring's {@link TagKeyRing#sign}: empty without a key
     * @throws IllegalArgumentException if a part breaks the tag's rules: among them an engine id whose prefix does
     *     not match {@code kind}, or that holds a '.'
     */
    public String format(IdKind kind, String site, String clusterDigest, String mac, String engineId) {
        return format(new TaggedId(kind, site, clusterDigest, mac, engineId));
    }

    /**
     * The text an engine id of {@code kind} leaves the gateway as, whatever the id holds: its tag ({@link #format})
     * when a tag can carry it; else the same tag's head ({@code <kind><site>.<cluster>.<mac>.}) followed by the rest of
     * the id as it is, which {@link #parse} refuses (a '.', a character outside the id alphabet, nothing, or more than
     * 512 chars in all). So no id leaves naming a cluster other than the one that served it: an engine id that already
     * looks like a tag (of another cluster, or of no cluster) names no cluster at all.
     *
     * @throws IllegalArgumentException if {@code engineId} does not start with {@code kind}'s prefix, or the site,
     *     digest or mac breaks the tag's rules
     */
    public String formatAny(IdKind kind, String site, String clusterDigest, String mac, String engineId) {
        requireNonNull(kind, "kind");
        requireNonNull(engineId, "engineId");
        if (!engineId.startsWith(kind.prefix())) {
            throw new IllegalArgumentException("engine id does not start with \"" + kind.prefix() + "\"");
        }
        // The head is checked by formatting the tag of the shortest id of that kind, then cut before that id's body:
        // for an id a tag carries, head and body make exactly its tag.
        String head = format(kind, site, clusterDigest, mac, kind.prefix() + ID_CHARACTER);
        return head.substring(0, head.length() - 1)
                + engineId.substring(kind.prefix().length());
    }

    /** The tag text of {@code id}. */
    public String format(TaggedId id) {
        requireNonNull(id, "id");
        return id.kind().prefix() + id.site() + '.' + id.clusterDigest() + '.' + id.mac() + '.' + id.bareId();
    }

    /** What {@code text} is: a tag, a plain engine id, or malformed. Never throws, whatever the text. */
    public TagParse parse(String text) {
        requireNonNull(text, "text");
        if (text.length() > TagText.MAX_LENGTH) {
            return MALFORMED;
        }
        Optional<IdKind> found = IdKind.of(text);
        if (found.isEmpty()) {
            return MALFORMED;
        }
        IdKind kind = found.get();
        int start = kind.prefix().length();
        int end = text.length();
        int siteEnd = text.indexOf('.', start);
        if (siteEnd < 0) {
            return TagText.isIdBody(text, start, end) ? UNTAGGED : MALFORMED;
        }
        int digestEnd = text.indexOf('.', siteEnd + 1);
        int macEnd = digestEnd < 0 ? -1 : text.indexOf('.', digestEnd + 1);
        // A fourth '.' lands in the id body, which refuses it.
        if (macEnd < 0
                || !TagText.isSiteLabel(text, start, siteEnd)
                || !TagText.isLowerHex(text, siteEnd + 1, digestEnd, ClusterDigest.LENGTH)
                || !TagText.isMac(text, digestEnd + 1, macEnd)
                || !TagText.isIdBody(text, macEnd + 1, end)) {
            return MALFORMED;
        }
        return new TagParse.Tagged(new TaggedId(
                kind,
                text.substring(start, siteEnd),
                text.substring(siteEnd + 1, digestEnd),
                text.substring(digestEnd + 1, macEnd),
                kind.prefix().concat(text.substring(macEnd + 1))));
    }

    /** The engine's own id that {@code id} tags, its prefix restored: what the request forwards. */
    public String strip(TaggedId id) {
        requireNonNull(id, "id");
        return id.engineId();
    }
}

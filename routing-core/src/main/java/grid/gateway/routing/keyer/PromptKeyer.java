package grid.gateway.routing.keyer;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.text.NameRule;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Turns a request body into its {@link PromptKeys} (docs/design.md §4; the seed's "What it keys on").
 *
 * <pre>
 *   body bytes ──> BodyIndex (JsonTokenizer's one pass: grammar, UTF-8, depth; root members by offset)
 *              ──> model, cache_salt ──> (keysMatter(model)? else no keys: ONE_CANDIDATE) ──> BlockChain seed
 *              ──> DialectWalker: tools → system → messages, written as the canonical stream
 *              ──> BlockChain: 256-byte blocks, chained XXH64 keys, stops the walk at 512
 *              ──> a stopped walk: the prompt's length in blocks estimated from the body's (BlockKeys#promptBlocks)
 * </pre>
 *
 * <p>Stateless and thread-safe. Never throws on any body: every outcome is keys or a {@link NoKeysReason}. Extra
 * memory is bounded by about the body's size (decoded strings and values under the 16 KiB rule), time is linear in
 * the body, and nothing recurses deeper than {@link grid.gateway.routing.text.JsonTokenizer#MAX_DEPTH}.
 */
public final class PromptKeyer {
    /** Creates a keyer; it holds no state, so one serves every request. */
    public PromptKeyer() {}

    /** The keys of {@code body} sent to the {@code dialect} API. */
    public PromptKeys key(ApiDialect dialect, byte[] body) {
        return key(dialect, body, model -> true);
    }

    /**
     * The keys of {@code body} sent to the {@code dialect} API, when {@code keysMatter} says keys can change the
     * decision for its model; else, once the body is validated and its model and cache_salt read, no keys for
     * {@link NoKeysReason#ONE_CANDIDATE}, without walking or hashing the prompt.
     */
    public PromptKeys key(ApiDialect dialect, byte[] body, Predicate<String> keysMatter) {
        requireNonNull(dialect, "dialect");
        requireNonNull(body, "body");
        requireNonNull(keysMatter, "keysMatter");
        Optional<String> model = Optional.empty();
        Optional<String> salt = Optional.empty();
        try {
            ValidatedBody validated = BodyIndex.validate(body);
            JsonNav nav = validated.nav();
            Members root = validated.root();
            int modelValue = root.find(nav, FieldName.MODEL);
            if (root.count(nav, FieldName.MODEL) > 1 || root.count(nav, FieldName.CACHE_SALT) > 1) {
                // Routed by the last model, the one Python's json (and so vLLM) keeps; keyed by neither.
                return PromptKeys.unkeyed(modelOf(nav, modelValue), salt, NoKeysReason.DUPLICATE_MEMBER);
            }
            byte[] saltBytes = null;
            int saltValue = root.find(nav, FieldName.CACHE_SALT);
            if (saltValue >= 0 && nav.isString(saltValue)) {
                saltBytes = nav.decodedBytes(saltValue);
                salt = Optional.of(new String(saltBytes, StandardCharsets.UTF_8));
            }
            if (modelValue < 0 || !nav.isString(modelValue)) {
                return PromptKeys.unkeyed(model, salt, NoKeysReason.MISSING_MODEL);
            }
            byte[] modelBytes = nav.decodedBytes(modelValue);
            model = Optional.of(bounded(modelBytes));
            if (saltValue >= 0 && saltBytes == null) {
                // vLLM refuses a cache_salt that is not a string, so the engine answers this body with 400.
                return PromptKeys.unkeyed(model, salt, NoKeysReason.UNEXPECTED_SHAPE);
            }
            if (!keysMatter.test(model.get())) {
                return PromptKeys.unkeyed(model, salt, NoKeysReason.ONE_CANDIDATE);
            }
            BlockChain chain = new BlockChain(BlockChain.seed(modelBytes, saltBytes));
            try {
                DialectWalker.of(dialect).walk(root, new PromptWriter(nav, chain));
            } catch (ChainFull full) {
                // The 512th key: the keyer stops reading there, whatever follows it in the body.
            }
            BlockKeys keys = chain.finish();
            if (chain.isFull()) {
                // The walk stopped at 512 keys: what follows is priced by the body's length (docs/design.md §4).
                keys = keys.withPromptBlocks((int) Math.min(Integer.MAX_VALUE, promptBlocks(body.length)));
            }
            return keys.isEmpty()
                    ? PromptKeys.unkeyed(model, salt, NoKeysReason.EMPTY_PROMPT)
                    : PromptKeys.keyed(model.get(), salt, keys);
        } catch (NoKeysSignal signal) {
            if (signal.reason() == NoKeysReason.INVALID_JSON || signal.reason() == NoKeysReason.PARSER_LIMIT) {
                // No keys, but routed by the model the engine will read: it may read a body the keyer cannot.
                return PromptKeys.unkeyed(EnginesModel.read(body), salt, signal.reason());
            }
            return PromptKeys.unkeyed(model, salt, signal.reason());
        } catch (RuntimeException defect) {
            // A keyer defect must cost affinity for this request, never the request itself.
            return PromptKeys.unkeyed(model, salt, NoKeysReason.KEYER_FAULT);
        }
    }

    /**
     * The model a string value at {@code value} names, bounded: a model longer than any valid name is served by no
     * cluster, and nothing that carries the model on (a trace, a route explanation) may carry a body-sized name. Empty
     * for no value or one that is not a string.
     */
    private static Optional<String> modelOf(JsonNav nav, int value) {
        return value >= 0 && nav.isString(value) ? Optional.of(bounded(nav.decodedBytes(value))) : Optional.empty();
    }

    private static String bounded(byte[] model) {
        return NameRule.bounded(new String(model, StandardCharsets.UTF_8));
    }

    /** Blocks of 256 bytes in a body of {@code bytes} bytes, rounded up: a stopped walk's estimate of its prompt. */
    static long promptBlocks(long bytes) {
        return (bytes + BlockChain.BLOCK_BYTES - 1) / BlockChain.BLOCK_BYTES;
    }
}

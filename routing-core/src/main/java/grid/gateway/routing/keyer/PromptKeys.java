package grid.gateway.routing.keyer;

import static java.util.Objects.requireNonNull;

import java.util.Optional;

/**
 * What the keyer read from one request body: the model, the cache_salt, and the block keys or the reason there are
 * none.
 *
 * <p>Thread-safe (immutable). Invariant: {@code keys} is empty exactly when {@code noKeysReason} is present. The
 * salt and the keys are redacted from {@link #toString()}.
 *
 * @param model the body's model, when it is a string, bounded ({@link grid.gateway.routing.text.NameRule#bounded})
 * @param cacheSalt the body's cache_salt, when it is a string
 * @param keys at most 512 chained block keys
 * @param noKeysReason why there are no keys
 */
public record PromptKeys(
        Optional<String> model, Optional<String> cacheSalt, BlockKeys keys, Optional<NoKeysReason> noKeysReason) {

    public PromptKeys {
        requireNonNull(model, "model");
        requireNonNull(cacheSalt, "cacheSalt");
        requireNonNull(keys, "keys");
        requireNonNull(noKeysReason, "noKeysReason");
        if (keys.isEmpty() == noKeysReason.isEmpty()) {
            throw new IllegalArgumentException("keys are empty exactly when a no-keys reason is given");
        }
    }

    /** Keys for a body. */
    static PromptKeys keyed(String model, Optional<String> cacheSalt, BlockKeys keys) {
        return new PromptKeys(Optional.of(model), cacheSalt, keys, Optional.empty());
    }

    /** No keys, with whatever model and salt could be read. */
    static PromptKeys unkeyed(Optional<String> model, Optional<String> cacheSalt, NoKeysReason reason) {
        return new PromptKeys(model, cacheSalt, BlockKeys.none(), Optional.of(reason));
    }

    /** Whether the body got block keys. */
    public boolean isKeyed() {
        return noKeysReason.isEmpty();
    }

    @Override
    public String toString() {
        return "PromptKeys[model=" + model.orElse("<none>")
                + ", cacheSalt=" + (cacheSalt.isPresent() ? "<redacted>" : "<none>")
                + ", keys=" + keys.size()
                + noKeysReason.map(r -> ", noKeys=" + r.label()).orElse("")
                + "]";
    }
}

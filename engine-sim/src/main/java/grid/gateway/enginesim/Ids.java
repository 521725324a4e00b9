package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import java.util.HexFormat;
import java.util.random.RandomGenerator;

/**
 * Engine-style ids (docs/design.md §A5.1): {@code chatcmpl-<32 hex>}, {@code cmpl-<32 hex>}, vLLM's
 * {@code resp_<32 hex>} and {@code msg_<32 hex>}, and OpenAI's longer {@code conv_<48 hex>} (vLLM has no
 * conversations).
 *
 * <p>Thread-safe when its random source is.
 */
final class Ids {
    private final RandomGenerator random;

    Ids(RandomGenerator random) {
        this.random = requireNonNull(random, "random");
    }

    String chatCompletion() {
        return "chatcmpl-" + hex(32);
    }

    String completion() {
        return "cmpl-" + hex(32);
    }

    /** An Anthropic message id, or a Responses output or input message item id. */
    String message() {
        return "msg_" + hex(32);
    }

    String response() {
        return "resp_" + hex(32);
    }

    String conversation() {
        return "conv_" + hex(48);
    }

    /** An id for a stored item of another type, such as {@code fc_…} for a function call. */
    String item(String prefix) {
        return prefix + hex(32);
    }

    private String hex(int digits) {
        byte[] bytes = new byte[digits / 2];
        random.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }
}

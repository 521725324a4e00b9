package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import java.util.HexFormat;
import java.util.random.RandomGenerator;

/**
 * Engine-style ids (docs/design.md §A5.1), as vLLM makes them ({@code testdata/vllm/}): {@code chatcmpl-<16 hex>}
 * (Chat Completions, and Anthropic Messages too), {@code cmpl-<16 hex>}, {@code resp_<16 hex>}, {@code msg_<16 hex>}
 * for output message items, a bare {@code <16 hex>} for a message item while it streams, and OpenAI's longer
 * {@code conv_<48 hex>} (vLLM has no conversations).
 *
 * <p>Thread-safe when its random source is.
 */
final class Ids {
    private final RandomGenerator random;

    Ids(RandomGenerator random) {
        this.random = requireNonNull(random, "random");
    }

    /** A Chat Completions id, and vLLM's id of an Anthropic message. */
    String chatCompletion() {
        return "chatcmpl-" + hex(16);
    }

    String completion() {
        return "cmpl-" + hex(16);
    }

    /** A Responses output or input message item id. */
    String message() {
        return "msg_" + hex(16);
    }

    /** The id a streamed output message carries in its events before it completes: bare hex, as vLLM's. */
    String streamedItem() {
        return hex(16);
    }

    String response() {
        return "resp_" + hex(16);
    }

    String conversation() {
        return "conv_" + hex(48);
    }

    /** The id of {@code GET /v1/models}' permission object. */
    String permission() {
        return "modelperm-" + hex(16);
    }

    /** An id for a stored item of another type, such as {@code fc_…} for a function call. */
    String item(String prefix) {
        return prefix + hex(16);
    }

    private String hex(int digits) {
        byte[] bytes = new byte[digits / 2];
        random.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }
}

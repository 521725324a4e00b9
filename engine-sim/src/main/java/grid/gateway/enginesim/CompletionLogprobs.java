package grid.gateway.enginesim;

import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.util.List;
import java.util.OptionalInt;

/**
 * The {@code logprobs} of a Completions choice when the request asks for them ({@code "logprobs": n}), in vLLM's
 * shape ({@code testdata/vllm/completions_nonstream.json}): {@code text_offset} (where each token starts in the
 * choice's text), {@code token_logprobs}, {@code tokens}, and {@code top_logprobs}, one map a token holding the
 * sampled token and {@code n} others, as vLLM lists them when the sampled token is not among the top {@code n}. The
 * simulator's numbers are placeholders: the sampled token at {@value #SAMPLED}, the others lower.
 *
 * <p>Stateless and thread-safe.
 */
final class CompletionLogprobs {
    static final double SAMPLED = -0.5;
    /** vLLM's default {@code --max-logprobs}. */
    static final int MAX_LOGPROBS = 20;

    private CompletionLogprobs() {}

    /**
     * The {@code logprobs} the request asks for: a number, read as pydantic reads an int ({@link JsonText#integer}),
     * else none ({@code null} or absent). More than vLLM's {@code --max-logprobs} ({@value #MAX_LOGPROBS} by default)
     * is refused in the words of vLLM's source of the recorded build's period (not recorded), so that no request makes
     * the simulator build more alternatives than a vLLM would.
     */
    static OptionalInt requested(JsonObject body) {
        if (!(body.get("logprobs") instanceof JsonNumber)) {
            return OptionalInt.empty();
        }
        int asked = JsonText.integer(body, "logprobs").orElse(0);
        if (asked > MAX_LOGPROBS) {
            throw RequestRejected.badRequest(
                    "Requested sample logprobs of " + asked + ", which is greater than max allowed: " + MAX_LOGPROBS,
                    "logprobs");
        }
        return OptionalInt.of(Math.max(0, asked));
    }

    /**
     * The logprobs of {@code pieces} (one a token) starting at character {@code offset} of the choice's text, with
     * {@code top} alternatives a token; JSON null when none were asked for.
     */
    static JsonValue of(List<String> pieces, int offset, OptionalInt top) {
        if (top.isEmpty()) {
            return JsonValue.NULL;
        }
        var offsets = JsonText.array();
        var logprobs = JsonText.array();
        var tokens = JsonText.array();
        var tops = JsonText.array();
        int at = offset;
        for (String piece : pieces) {
            offsets.add(at);
            at += piece.codePointCount(0, piece.length());
            logprobs.add(SAMPLED);
            tokens.add(piece);
            var alternatives = JsonText.object().add(piece, SAMPLED);
            for (int k = 1; k <= top.getAsInt(); k++) {
                alternatives.add("<alt" + k + ">", SAMPLED - k);
            }
            tops.add(alternatives);
        }
        return JsonText.object()
                .add("text_offset", offsets)
                .add("token_logprobs", logprobs)
                .add("tokens", tokens)
                .add("top_logprobs", tops)
                .build();
    }
}

package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import java.util.Optional;
import java.util.OptionalInt;

/**
 * What one request asks the simulated engine to do, whatever its API: the model, the rendered prompt text (what the
 * prefix cache and the token count see), the cache salt, the output limit, and the text the answer's words are
 * taken from.
 *
 * <p>Immutable.
 *
 * @param model the served model
 * @param text the rendered prompt
 * @param salt the request's {@code cache_salt}, if any
 * @param maxTokens the request's output limit, if any
 * @param echo the text whose words make up the answer (usually the last user turn)
 */
record Prompt(String model, String text, Optional<String> salt, OptionalInt maxTokens, String echo) {
    Prompt {
        requireNonNull(model, "model");
        requireNonNull(text, "text");
        requireNonNull(salt, "salt");
        requireNonNull(maxTokens, "maxTokens");
        requireNonNull(echo, "echo");
    }
}

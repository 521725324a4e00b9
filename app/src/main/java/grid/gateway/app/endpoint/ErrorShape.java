package grid.gateway.app.endpoint;

/**
 * The JSON shape of the gateway's own error answers: the one the client's API uses for its errors.
 *
 * <p>Stateless and thread-safe.
 */
public enum ErrorShape {
    /** {@code {"error":{"message","type","param","code"}}}: Chat Completions, Completions, Responses, the rest. */
    OPENAI,
    /** {@code {"type":"error","error":{"type","message"}}}: Anthropic Messages. */
    ANTHROPIC
}

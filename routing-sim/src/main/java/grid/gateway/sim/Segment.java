package grid.gateway.sim;

/**
 * One piece of a synthetic prompt: a system prompt, a tool list, a user or tool message, or an assistant answer.
 * Equal ids mean equal content, so two prompts that share leading segments share their prefix.
 *
 * <p>Thread-safe (immutable).
 *
 * @param id the content's identity (it seeds the text and the engine's pseudo-tokens)
 * @param tokens its length in engine tokens (its text has four bytes a token)
 * @param role where it sits in the request
 */
public record Segment(long id, int tokens, Role role) {

    /** Where a segment sits in a Chat Completions request. */
    public enum Role {
        /** The system message. */
        SYSTEM,
        /** The request's {@code tools} list. */
        TOOLS,
        /** A user message (a question, a task or a tool result). */
        USER,
        /** An assistant message: an earlier turn's answer. */
        ASSISTANT
    }

    public Segment {
        if (tokens <= 0) {
            throw new IllegalArgumentException("tokens: " + tokens + " (expected: > 0)");
        }
    }
}

package grid.gateway.routing.keyer;

/**
 * Walks one API's body and writes its prompt in the canonical order: tools, then the system prompt, then the
 * messages or input items (docs/design.md §4).
 *
 * <p>Implementations are stateless and thread-safe.
 */
interface DialectWalker {
    /** Writes the prompt of the body whose root members are {@code root}. */
    void walk(Members root, PromptWriter writer);

    /** The walker for {@code dialect}. */
    static DialectWalker of(ApiDialect dialect) {
        return switch (dialect) {
            case CHAT_COMPLETIONS -> ChatCompletionsWalker.INSTANCE;
            case COMPLETIONS -> CompletionsWalker.INSTANCE;
            case MESSAGES -> MessagesWalker.INSTANCE;
            case RESPONSES -> ResponsesWalker.INSTANCE;
        };
    }
}

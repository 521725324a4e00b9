package grid.gateway.routing.keyer;

/**
 * Completions: the {@code prompt} string is the whole prompt; an array of strings (a batch) keys by its first
 * string; token ids (an array of integers or of arrays) and {@code prompt_embeds} get no keys; {@code suffix} is
 * ignored.
 *
 * <p>Stateless and thread-safe.
 */
final class CompletionsWalker implements DialectWalker {
    static final CompletionsWalker INSTANCE = new CompletionsWalker();

    private CompletionsWalker() {}

    @Override
    public void walk(Members root, PromptWriter writer) {
        JsonNav nav = writer.nav();
        int prompt = root.find(nav, FieldName.PROMPT);
        if (prompt < 0) {
            if (root.has(nav, FieldName.PROMPT_EMBEDS)) {
                throw new NoKeysSignal(NoKeysReason.TOKEN_PROMPT);
            }
            return;
        }
        if (nav.isArray(prompt)) {
            int first = nav.enter(prompt);
            if (nav.isClose(first)) {
                return;
            }
            if (!nav.isString(first)) {
                byte c = nav.at(first);
                boolean tokens = c == '[' || c == '-' || (c >= '0' && c <= '9');
                throw new NoKeysSignal(tokens ? NoKeysReason.TOKEN_PROMPT : NoKeysReason.UNEXPECTED_SHAPE);
            }
            prompt = first;
        }
        writer.prompt(writer.requireString(prompt));
    }
}

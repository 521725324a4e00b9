package grid.gateway.routing.keyer;

/**
 * Chat Completions: {@code tools}, then each of {@code messages}: role, content, and tool calls as name plus
 * canonical arguments. Reasoning ({@code reasoning}, {@code reasoning_content}), {@code name},
 * {@code tool_call_id} and the legacy {@code function_call} (which vLLM does not render) are ignored.
 *
 * <p>Stateless and thread-safe.
 */
final class ChatCompletionsWalker implements DialectWalker {
    static final ChatCompletionsWalker INSTANCE = new ChatCompletionsWalker();

    private ChatCompletionsWalker() {}

    @Override
    public void walk(Members root, PromptWriter writer) {
        JsonNav nav = writer.nav();
        writer.tools(root.find(nav, FieldName.TOOLS), null);
        writer.forEachObject(root.find(nav, FieldName.MESSAGES), message -> {
            writer.message(message.find(nav, FieldName.ROLE));
            writer.content(message.find(nav, FieldName.CONTENT), PartTable.OPENAI, false);
            toolCalls(message.find(nav, FieldName.TOOL_CALLS), writer);
        });
    }

    private static void toolCalls(int calls, PromptWriter writer) {
        JsonNav nav = writer.nav();
        writer.forEachObject(calls, call -> {
            int function = call.find(nav, FieldName.FUNCTION);
            int custom = call.find(nav, FieldName.CUSTOM);
            if (function >= 0 && nav.isObject(function)) {
                Members fn = Members.of(nav, function);
                writer.toolCall(fn.find(nav, FieldName.NAME), fn.find(nav, FieldName.ARGUMENTS), false);
            } else if (custom >= 0 && nav.isObject(custom)) {
                Members fn = Members.of(nav, custom);
                writer.toolCall(fn.find(nav, FieldName.NAME), fn.find(nav, FieldName.INPUT), true);
            } else {
                throw new NoKeysSignal(NoKeysReason.UNEXPECTED_SHAPE);
            }
        });
    }
}

package grid.gateway.routing.keyer;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;

/**
 * Responses: {@code tools}, then {@code instructions} as a system message, then {@code input}: a string is one user
 * message; an array holds items. Messages key like Chat Completions messages; {@code function_call} and
 * {@code custom_tool_call} items are tool calls; their outputs are tool results; {@code reasoning} items are
 * ignored; an {@code item_reference} keys by a digest of the id it names. Other item types get no keys.
 *
 * <p>Stateless and thread-safe.
 */
final class ResponsesWalker implements DialectWalker {
    static final ResponsesWalker INSTANCE = new ResponsesWalker();

    private static final byte[] SYSTEM_ROLE = "system".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] USER_ROLE = "user".getBytes(StandardCharsets.US_ASCII);
    private static final FieldName CALL_ID = FieldName.CALL_ID;

    private ResponsesWalker() {}

    /** The kinds of input item. */
    private enum Item {
        MESSAGE,
        FUNCTION_CALL,
        CUSTOM_TOOL_CALL,
        FUNCTION_CALL_OUTPUT,
        CUSTOM_TOOL_CALL_OUTPUT,
        REASONING,
        ITEM_REFERENCE
    }

    @Override
    public void walk(Members root, PromptWriter writer) {
        JsonNav nav = writer.nav();
        writer.tools(root.find(nav, FieldName.TOOLS), null);
        textOrItems(root.find(nav, FieldName.INSTRUCTIONS), SYSTEM_ROLE, writer);
        textOrItems(root.find(nav, FieldName.INPUT), USER_ROLE, writer);
    }

    private static void textOrItems(int value, byte[] role, PromptWriter writer) {
        JsonNav nav = writer.nav();
        if (value < 0) {
            return;
        }
        if (nav.isString(value)) {
            writer.message(role);
            writer.content(value, PartTable.OPENAI, false);
            return;
        }
        writer.forEachObject(value, item -> item(item, writer));
    }

    private static void item(Members item, PromptWriter writer) {
        JsonNav nav = writer.nav();
        switch (kind(item, nav).orElseThrow(() -> new NoKeysSignal(NoKeysReason.UNKNOWN_PART_TYPE))) {
            case MESSAGE -> {
                writer.message(item.find(nav, FieldName.ROLE));
                writer.content(item.find(nav, FieldName.CONTENT), PartTable.OPENAI, false);
            }
            case FUNCTION_CALL ->
                writer.toolCall(item.find(nav, FieldName.NAME), item.find(nav, FieldName.ARGUMENTS), false);
            case CUSTOM_TOOL_CALL ->
                writer.toolCall(item.find(nav, FieldName.NAME), item.find(nav, FieldName.INPUT), true);
            case FUNCTION_CALL_OUTPUT, CUSTOM_TOOL_CALL_OUTPUT -> {
                writer.toolResult();
                writer.content(item.find(nav, FieldName.OUTPUT), PartTable.OPENAI, false);
            }
            case REASONING -> {}
            case ITEM_REFERENCE -> writer.reference(item.find(nav, FieldName.ID));
        }
    }

    private static Optional<Item> kind(Members item, JsonNav nav) {
        int type = item.find(nav, FieldName.TYPE);
        if (type < 0) {
            // An item without a type is a message when it has a role (the "easy" form), and a reference when it
            // has only an id and no call_id.
            if (item.has(nav, FieldName.ROLE)) {
                return Optional.of(Item.MESSAGE);
            }
            boolean reference = item.has(nav, FieldName.ID) && !item.has(nav, CALL_ID);
            return reference ? Optional.of(Item.ITEM_REFERENCE) : Optional.empty();
        }
        if (!nav.isString(type)) {
            return Optional.empty();
        }
        String name = nav.string(type);
        for (Item kind : Item.values()) {
            if (kind.name().toLowerCase(Locale.ROOT).equals(name)) {
                return Optional.of(kind);
            }
        }
        return Optional.empty();
    }
}

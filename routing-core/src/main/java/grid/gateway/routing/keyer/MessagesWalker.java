package grid.gateway.routing.keyer;

import java.nio.charset.StandardCharsets;

/**
 * Anthropic Messages: {@code tools} (each without its {@code cache_control}, a caching breakpoint that clients move
 * between requests), then {@code system} as one system message, then {@code messages}. System text blocks (of
 * {@code system} or of a {@code system} message) that begin with {@code x-anthropic-billing-header} are left out, as
 * vLLM leaves them out; a system prompt made only of such blocks keys like no system prompt. A system given as a
 * string is keyed whole, whatever it begins with, as vLLM renders it whole.
 *
 * <p>Stateless and thread-safe.
 */
final class MessagesWalker implements DialectWalker {
    static final MessagesWalker INSTANCE = new MessagesWalker();

    private static final byte[] SYSTEM_ROLE = "system".getBytes(StandardCharsets.US_ASCII);

    private MessagesWalker() {}

    @Override
    public void walk(Members root, PromptWriter writer) {
        JsonNav nav = writer.nav();
        writer.tools(root.find(nav, FieldName.TOOLS), FieldName.CACHE_CONTROL);
        system(root.find(nav, FieldName.SYSTEM), writer);
        writer.forEachObject(root.find(nav, FieldName.MESSAGES), message -> {
            int role = message.find(nav, FieldName.ROLE);
            writer.message(role);
            boolean system = role >= 0 && nav.stringEquals(role, SYSTEM_ROLE);
            writer.content(message.find(nav, FieldName.CONTENT), PartTable.ANTHROPIC, system);
        });
    }

    private static void system(int system, PromptWriter writer) {
        if (system < 0 || !hasKeyedText(system, writer)) {
            return;
        }
        writer.message(SYSTEM_ROLE);
        writer.content(system, PartTable.ANTHROPIC, true);
    }

    /** Whether the system prompt has anything besides billing-header blocks; a string always has. */
    private static boolean hasKeyedText(int system, PromptWriter writer) {
        JsonNav nav = writer.nav();
        if (nav.isString(system)) {
            return true;
        }
        if (!nav.isArray(system)) {
            throw new NoKeysSignal(NoKeysReason.UNEXPECTED_SHAPE);
        }
        for (int p = nav.enter(system); !nav.isClose(p); p = nav.next(nav.end(p))) {
            if (!nav.isObject(p)) {
                return true; // let content() judge it
            }
            int text = Members.of(nav, p).find(nav, FieldName.TEXT);
            if (text < 0 || !nav.isString(text) || !writer.isBillingHeader(text)) {
                return true;
            }
        }
        return false;
    }
}

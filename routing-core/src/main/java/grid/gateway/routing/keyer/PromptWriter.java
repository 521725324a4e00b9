package grid.gateway.routing.keyer;

import grid.gateway.routing.text.JsonTokenizer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Writes the pieces every dialect shares into the canonical stream: messages, content, parts, tool definitions and
 * tool calls (docs/design.md §4, framing in {@link Segment}).
 *
 * <p>Not thread-safe; one per body. Throws {@link NoKeysSignal} when the body turns out to have no keys.
 */
final class PromptWriter {
    /**
     * vLLM drops Anthropic system text blocks that begin so (Claude Code puts a per-request hash there); a system
     * given as a string it renders whole.
     */
    private static final byte[] BILLING_HEADER = "x-anthropic-billing-header".getBytes(StandardCharsets.US_ASCII);

    private static final long REFERENCE_SEED = 0x0000_4EFEL;

    private final JsonNav nav;
    private final CanonicalSink sink;
    private final CanonicalJson canonical = new CanonicalJson();

    PromptWriter(JsonNav nav, CanonicalSink sink) {
        this.nav = nav;
        this.sink = sink;
    }

    JsonNav nav() {
        return nav;
    }

    /** The start of a message: its role ({@code -1} when absent) and the content marker. */
    void message(int role) {
        sink.write(Segment.MESSAGE);
        if (role >= 0) {
            nav.decode(requireString(role), sink);
        }
        sink.write(Segment.CONTENT);
    }

    /** The start of a message with a role the API implies: {@code system}, {@code instructions}, {@code input}. */
    void message(byte[] role) {
        sink.write(Segment.MESSAGE);
        sink.write(role, 0, role.length);
        sink.write(Segment.CONTENT);
    }

    /** A Completions prompt string. */
    void prompt(int text) {
        sink.write(Segment.PROMPT);
        nav.decode(text, sink);
    }

    /**
     * Content given as a string or an array of parts; absent ({@code -1}) content contributes nothing. With
     * {@code system}, text blocks that begin with the billing header are left out; a string is always keyed.
     */
    void content(int value, PartTable table, boolean system) {
        content(value, table, system, false);
    }

    /** Whether the text of a system text block is the billing header that vLLM drops. */
    boolean isBillingHeader(int text) {
        return nav.stringStartsWith(text, BILLING_HEADER);
    }

    /** A tool call: name, then arguments (canonical JSON, or free text when {@code freeText}). */
    void toolCall(int name, int arguments, boolean freeText) {
        sink.write(Segment.TOOL_CALL);
        if (name >= 0) {
            nav.decode(requireString(name), sink);
        }
        sink.write(Segment.ARGUMENTS);
        if (arguments < 0) {
            return;
        }
        int end = nav.end(arguments);
        if (OversizeValue.applies(arguments, end)) {
            OversizeValue.write(nav.bytes(), arguments, end, sink);
        } else if (freeText) {
            sink.write(Segment.ARGUMENTS_TEXT);
            nav.decode(requireString(arguments), sink);
        } else if (nav.isString(arguments)) {
            stringArguments(arguments);
        } else {
            canonical.writeValue(nav, arguments, sink, null);
        }
    }

    /** The start of a tool result; its content follows. */
    void toolResult() {
        sink.write(Segment.TOOL_RESULT);
    }

    /** A reference to a stored item, keyed by a digest of its id. */
    void reference(int id) {
        byte[] bytes = nav.decodedBytes(requireString(id));
        sink.write(Segment.REFERENCE);
        sink.writeDigest(Xxh64.hash(bytes, 0, bytes.length, REFERENCE_SEED));
    }

    /**
     * A tool list: each tool in canonical JSON, without the member {@code dropped} at its top level; or, over the
     * 16 KiB rule, one digest of the whole list as sent.
     */
    void tools(int value, @Nullable FieldName dropped) {
        if (value < 0) {
            return;
        }
        if (!nav.isArray(value)) {
            throw new NoKeysSignal(NoKeysReason.UNEXPECTED_SHAPE);
        }
        int end = nav.end(value);
        if (OversizeValue.applies(value, end)) {
            sink.write(Segment.TOOL);
            OversizeValue.write(nav.bytes(), value, end, sink);
            return;
        }
        for (int p = nav.enter(value); !nav.isClose(p); p = nav.next(nav.end(p))) {
            sink.write(Segment.TOOL);
            canonical.writeValue(nav, p, sink, dropped);
        }
    }

    /**
     * Visits each element of the array at {@code array}, each of which must be an object, until the chain's 512th
     * key ends the walk ({@link ChainFull}); an absent ({@code -1}) array visits nothing.
     */
    void forEachObject(int array, Consumer<Members> visit) {
        if (array < 0) {
            return;
        }
        if (!nav.isArray(array)) {
            throw new NoKeysSignal(NoKeysReason.UNEXPECTED_SHAPE);
        }
        for (int p = nav.enter(array); !nav.isClose(p); ) {
            if (!nav.isObject(p)) {
                throw new NoKeysSignal(NoKeysReason.UNEXPECTED_SHAPE);
            }
            Members element = Members.of(nav, p);
            visit.accept(element);
            p = nav.next(element.objectEnd());
        }
    }

    /** Fails unless a string starts at {@code p}; returns {@code p}. */
    int requireString(int p) {
        if (p < 0 || !nav.isString(p)) {
            throw new NoKeysSignal(NoKeysReason.UNEXPECTED_SHAPE);
        }
        return p;
    }

    private void content(int value, PartTable table, boolean system, boolean inToolResult) {
        if (value < 0) {
            return;
        }
        if (nav.isString(value)) {
            nav.decode(value, sink);
            return;
        }
        if (!nav.isArray(value)) {
            throw new NoKeysSignal(NoKeysReason.UNEXPECTED_SHAPE);
        }
        for (int p = nav.enter(value); !nav.isClose(p); ) {
            p = nav.next(part(p, table, system, inToolResult));
        }
    }

    /** Writes one part; returns the index after it. */
    private int part(int p, PartTable table, boolean system, boolean inToolResult) {
        if (nav.isString(p)) {
            nav.decode(p, sink); // vLLM accepts a bare string as a text part
            return nav.end(p);
        }
        if (!nav.isObject(p)) {
            throw new NoKeysSignal(NoKeysReason.UNEXPECTED_SHAPE);
        }
        Members part = Members.of(nav, p);
        int type = part.find(nav, FieldName.TYPE);
        PartRule rule = (type < 0
                        ? table.typelessRule(nav, part)
                        : nav.isString(type) ? table.rule(nav.string(type)) : Optional.<PartRule>empty())
                .orElseThrow(() -> new NoKeysSignal(NoKeysReason.UNKNOWN_PART_TYPE));
        switch (rule) {
            case PartRule.Text text -> text(part.find(nav, text.field()), system);
            case PartRule.Media media -> {
                sink.write(Segment.MEDIA);
                sink.writeDigest(MediaPartDigest.of(nav, part, media.payload(), p, part.objectEnd()));
            }
            case PartRule.Ignored ignored -> {}
            case PartRule.ToolCall call ->
                toolCall(part.find(nav, call.name()), part.find(nav, call.arguments()), false);
            case PartRule.Nested nested -> {
                if (nested.toolResult()) {
                    if (inToolResult) {
                        throw new NoKeysSignal(NoKeysReason.UNKNOWN_PART_TYPE);
                    }
                    toolResult();
                }
                content(part.find(nav, nested.content()), table, system, inToolResult || nested.toolResult());
            }
            case PartRule.StructuredResult result -> {
                toolResult();
                structured(part.find(nav, result.content()));
            }
        }
        return part.objectEnd();
    }

    private void text(int value, boolean system) {
        if (value < 0 || (system && isBillingHeader(requireString(value)))) {
            return;
        }
        nav.decode(requireString(value), sink);
    }

    private void structured(int value) {
        if (value < 0) {
            return;
        }
        int end = nav.end(value);
        if (OversizeValue.applies(value, end)) {
            OversizeValue.write(nav.bytes(), value, end, sink);
        } else {
            canonical.writeValue(nav, value, sink, null);
        }
    }

    /** Arguments sent as a JSON string: parsed and canonicalised, or, when not JSON, keyed as text. */
    private void stringArguments(int arguments) {
        byte[] decoded = nav.decodedBytes(arguments);
        if (JsonTokenizer.isValid(decoded)) {
            JsonNav inner = new JsonNav(decoded, new int[0]);
            canonical.writeValue(inner, inner.ws(0), sink, null);
        } else {
            sink.write(Segment.ARGUMENTS_TEXT);
            sink.write(decoded, 0, decoded.length);
        }
    }
}

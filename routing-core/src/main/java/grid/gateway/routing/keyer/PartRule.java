package grid.gateway.routing.keyer;

import java.util.List;

/**
 * How one type of content part, content block or input item contributes to the canonical stream.
 *
 * <p>Thread-safe (immutable). The rules of each API are listed in {@link PartTable}.
 */
sealed interface PartRule {
    /** Text from one string member. */
    record Text(FieldName field) implements PartRule {}

    /** One fixed-size digest: of the part's uuid, else of the first present payload member (docs/design.md §4). */
    record Media(List<FieldName> payload) implements PartRule {
        public Media {
            payload = List.copyOf(payload);
        }
    }

    /** Contributes nothing: reasoning and thinking. */
    record Ignored() implements PartRule {}

    /** A tool call: its name and its arguments in canonical form. */
    record ToolCall(FieldName name, FieldName arguments) implements PartRule {}

    /** Nested content (a string or parts), marked as a tool result when {@code toolResult}. */
    record Nested(FieldName content, boolean toolResult) implements PartRule {}

    /** A tool result whose content is structured JSON, keyed in canonical form. */
    record StructuredResult(FieldName content) implements PartRule {}
}

package grid.gateway.routing.keyer;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The content part types each API has (docs/design.md §4, reference docs/design.md §A1.4, §A3.2, §A4.2), and how each one keys.
 *
 * <p>Thread-safe (immutable). A part whose type is not listed makes the whole body unkeyed
 * ({@link NoKeysReason#UNKNOWN_PART_TYPE}): guessing at an unknown part could key two different prompts alike.
 */
final class PartTable {
    private static final FieldName IMAGE_URL = FieldName.IMAGE_URL;
    private static final FieldName INPUT_AUDIO = FieldName.INPUT_AUDIO;
    private static final FieldName AUDIO_URL = FieldName.AUDIO_URL;
    private static final FieldName VIDEO_URL = FieldName.VIDEO_URL;
    private static final FieldName IMAGE_EMBEDS = FieldName.IMAGE_EMBEDS;
    private static final FieldName AUDIO_EMBEDS = FieldName.AUDIO_EMBEDS;
    private static final FieldName FILE = FieldName.FILE;
    private static final FieldName FILE_ID = FieldName.FILE_ID;
    private static final FieldName FILE_DATA = FieldName.FILE_DATA;
    private static final FieldName FILE_URL = FieldName.FILE_URL;
    private static final FieldName DATA = FieldName.DATA;
    private static final FieldName SOURCE = FieldName.SOURCE;
    private static final FieldName REFUSAL = FieldName.REFUSAL;
    private static final FieldName TOOL_NAME = FieldName.TOOL_NAME;
    private static final PartRule.Text TEXT = new PartRule.Text(FieldName.TEXT);
    private static final PartRule IGNORED = new PartRule.Ignored();

    /** Chat Completions and Responses message content: the union vLLM's chat parser accepts. */
    static final PartTable OPENAI = new PartTable(
            Map.ofEntries(
                    Map.entry("text", TEXT),
                    Map.entry("input_text", TEXT),
                    Map.entry("output_text", TEXT),
                    Map.entry("refusal", new PartRule.Text(REFUSAL)),
                    Map.entry("tool_reference", new PartRule.Text(FieldName.NAME)),
                    Map.entry("thinking", IGNORED),
                    Map.entry("image_url", media(IMAGE_URL)),
                    Map.entry("input_image", media(IMAGE_URL, FILE_ID)),
                    Map.entry("input_audio", media(INPUT_AUDIO)),
                    Map.entry("audio_url", media(AUDIO_URL)),
                    Map.entry("video_url", media(VIDEO_URL)),
                    Map.entry("image_embeds", media(IMAGE_EMBEDS)),
                    Map.entry("audio_embeds", media(AUDIO_EMBEDS)),
                    Map.entry("prompt_embeds", media(DATA)),
                    Map.entry("file", media(FILE)),
                    Map.entry("input_file", media(FILE_DATA, FILE_ID, FILE_URL))),
            true);

    /** Anthropic Messages content blocks. */
    static final PartTable ANTHROPIC = new PartTable(
            Map.ofEntries(
                    Map.entry("text", TEXT),
                    Map.entry("image", media(SOURCE)),
                    Map.entry("document", media(SOURCE)),
                    Map.entry("container_upload", media(FILE_ID)),
                    Map.entry("search_result", new PartRule.Nested(FieldName.CONTENT, false)),
                    Map.entry("mid_conv_system", new PartRule.Nested(FieldName.CONTENT, false)),
                    Map.entry("thinking", IGNORED),
                    Map.entry("redacted_thinking", IGNORED),
                    Map.entry("tool_use", new PartRule.ToolCall(FieldName.NAME, FieldName.INPUT)),
                    Map.entry("server_tool_use", new PartRule.ToolCall(FieldName.NAME, FieldName.INPUT)),
                    Map.entry("tool_result", new PartRule.Nested(FieldName.CONTENT, true)),
                    Map.entry("tool_reference", new PartRule.Text(TOOL_NAME)),
                    Map.entry("web_search_tool_result", structured()),
                    Map.entry("web_fetch_tool_result", structured()),
                    Map.entry("code_execution_tool_result", structured()),
                    Map.entry("bash_code_execution_tool_result", structured()),
                    Map.entry("text_editor_code_execution_tool_result", structured()),
                    Map.entry("tool_search_tool_result", structured())),
            false);

    /** Members that name a media payload in vLLM's "simple" parts, which have no {@code type}. */
    private static final List<FieldName> TYPELESS_MEDIA =
            List.of(IMAGE_URL, AUDIO_URL, VIDEO_URL, INPUT_AUDIO, IMAGE_EMBEDS, AUDIO_EMBEDS);

    private final Map<String, PartRule> rules;
    private final boolean typelessParts;

    private PartTable(Map<String, PartRule> rules, boolean typelessParts) {
        this.rules = rules;
        this.typelessParts = typelessParts;
    }

    /** The rule for a part with this {@code type}. */
    Optional<PartRule> rule(String type) {
        return Optional.ofNullable(rules.get(type));
    }

    /** The rule for a part without {@code type}, inferred from its members where the API allows that. */
    Optional<PartRule> typelessRule(JsonNav nav, Members part) {
        if (!typelessParts) {
            return Optional.empty();
        }
        if (part.has(nav, FieldName.TEXT)) {
            return Optional.of(TEXT);
        }
        for (FieldName payload : TYPELESS_MEDIA) {
            if (part.has(nav, payload)) {
                return Optional.of(media(payload));
            }
        }
        return Optional.empty();
    }

    private static PartRule.Media media(FieldName... payload) {
        return new PartRule.Media(List.of(payload));
    }

    private static PartRule structured() {
        return new PartRule.StructuredResult(FieldName.CONTENT);
    }
}

package grid.gateway.routing.keyer;

import java.nio.charset.StandardCharsets;

/**
 * A JSON member name the walkers look for, held as the bytes it has in an unescaped body.
 *
 * <p>Thread-safe (immutable).
 */
final class FieldName {
    static final FieldName MODEL = new FieldName("model");
    static final FieldName CACHE_SALT = new FieldName("cache_salt");
    static final FieldName TOOLS = new FieldName("tools");
    static final FieldName MESSAGES = new FieldName("messages");
    static final FieldName SYSTEM = new FieldName("system");
    static final FieldName INSTRUCTIONS = new FieldName("instructions");
    static final FieldName INPUT = new FieldName("input");
    static final FieldName PROMPT = new FieldName("prompt");
    static final FieldName PROMPT_EMBEDS = new FieldName("prompt_embeds");
    static final FieldName ROLE = new FieldName("role");
    static final FieldName CONTENT = new FieldName("content");
    static final FieldName TYPE = new FieldName("type");
    static final FieldName TEXT = new FieldName("text");
    static final FieldName UUID = new FieldName("uuid");
    static final FieldName NAME = new FieldName("name");
    static final FieldName ARGUMENTS = new FieldName("arguments");
    static final FieldName TOOL_CALLS = new FieldName("tool_calls");
    static final FieldName FUNCTION = new FieldName("function");
    static final FieldName CUSTOM = new FieldName("custom");
    static final FieldName OUTPUT = new FieldName("output");
    static final FieldName ID = new FieldName("id");
    static final FieldName CACHE_CONTROL = new FieldName("cache_control");

    private final String name;
    private final byte[] bytes;

    FieldName(String name) {
        this.name = name;
        this.bytes = name.getBytes(StandardCharsets.UTF_8);
    }

    /** The name's UTF-8 bytes; callers must not modify them. */
    byte[] bytes() {
        return bytes;
    }

    @Override
    public String toString() {
        return name;
    }
}

package grid.gateway.routing.keyer;

/**
 * The marker bytes that frame the canonical byte stream (docs/design.md §4).
 *
 * <p>Bytes 0xF5 to 0xFF never occur in UTF-8 text, so a marker can never be confused with prompt text: a role that
 * ends where the text begins, or text that ends where a tool call begins, cannot key like a different split of the
 * same characters. A digest is always 8 bytes after its marker.
 *
 * <pre>
 * stream      = tool* message*                      (Completions: PROMPT text)
 * tool        = TOOL canonical-json | OVERSIZE digest
 * message     = MESSAGE role CONTENT item*          (Responses items may also stand alone)
 * item        = text | MEDIA digest | REFERENCE digest
 *             | TOOL_CALL name ARGUMENTS arguments | TOOL_RESULT item*
 * arguments   = canonical-json | ARGUMENTS_TEXT text | OVERSIZE digest
 * </pre>
 */
final class Segment {
    static final int TOOL = 0xF5;
    static final int OVERSIZE = 0xF6;
    static final int MESSAGE = 0xF7;
    static final int CONTENT = 0xF8;
    static final int TOOL_CALL = 0xF9;
    static final int TOOL_RESULT = 0xFA;
    static final int MEDIA = 0xFB;
    static final int ARGUMENTS = 0xFC;
    static final int PROMPT = 0xFD;
    static final int REFERENCE = 0xFE;
    static final int ARGUMENTS_TEXT = 0xC0;
    static final int SEED = 0xFF;

    private Segment() {}
}

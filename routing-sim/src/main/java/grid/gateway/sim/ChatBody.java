package grid.gateway.sim;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Renders a synthetic prompt as the Chat Completions body a client would send, so that the gateway's real
 * {@code PromptKeyer} keys it: {@code tools} from the tool-list segment, then one message per other segment, with
 * four bytes of text a token (lowercase three-letter words, each with its space).
 *
 * <p>Not thread-safe: it memoises segment texts, which repeat across the turns of a session and across sessions
 * that share a system prompt or tool list.
 */
public final class ChatBody {
    private final Map<Long, String> texts = new HashMap<>();

    /** The body for {@code segments}, with {@code salt} as {@code cache_salt} when not empty. */
    public byte[] render(String model, String salt, List<Segment> segments) {
        StringBuilder out = new StringBuilder(EngineBlocks.tokens(segments) * 4 + 256);
        out.append("{\"model\":\"").append(model).append('"');
        if (!salt.isEmpty()) {
            out.append(",\"cache_salt\":\"").append(salt).append('"');
        }
        out.append(",\"stream\":true,\"max_tokens\":1024");
        for (Segment segment : segments) {
            if (segment.role() == Segment.Role.TOOLS) {
                out.append(",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"tool_")
                        .append(segment.id())
                        .append("\",\"description\":\"")
                        .append(text(segment))
                        .append("\",\"parameters\":{\"type\":\"object\",\"properties\":{}}}}]");
            }
        }
        out.append(",\"messages\":[");
        boolean first = true;
        for (Segment segment : segments) {
            if (segment.role() == Segment.Role.TOOLS) {
                continue;
            }
            out.append(first ? "" : ",").append("{\"role\":\"").append(role(segment.role()));
            out.append("\",\"content\":\"").append(text(segment)).append("\"}");
            first = false;
        }
        return out.append("]}").toString().getBytes(StandardCharsets.UTF_8);
    }

    /** A Completions body whose prompt is a token array: the keyer gives it no keys (docs/design.md §4). */
    public static byte[] tokenArray(String model, int tokens) {
        StringBuilder out = new StringBuilder("{\"model\":\"").append(model).append("\",\"prompt\":[");
        for (int i = 0; i < tokens; i++) {
            out.append(i == 0 ? "" : ",").append(1000 + i % 30000);
        }
        return out.append("]}").toString().getBytes(StandardCharsets.UTF_8);
    }

    private String text(Segment segment) {
        return texts.computeIfAbsent(segment.id(), id -> words(id, segment.tokens()));
    }

    private static String words(long id, int tokens) {
        SplittableRandom random = new SplittableRandom(id);
        char[] chars = new char[tokens * 4];
        for (int i = 0; i < chars.length; i += 4) {
            chars[i] = (char) ('a' + random.nextInt(26));
            chars[i + 1] = (char) ('a' + random.nextInt(26));
            chars[i + 2] = (char) ('a' + random.nextInt(26));
            chars[i + 3] = ' ';
        }
        return new String(chars);
    }

    private static String role(Segment.Role role) {
        return switch (role) {
            case SYSTEM -> "system";
            case USER -> "user";
            case ASSISTANT -> "assistant";
            case TOOLS -> throw new IllegalArgumentException("tools are not a message");
        };
    }
}

package grid.gateway.app.http;

import grid.gateway.app.endpoint.ErrorShape;
import java.util.SplittableRandom;

/**
 * Test fixture: every way a client's request is forwarded, for {@link ClientRequestsPropertyTest}: the untagged POSTs
 * of the four APIs (a Responses stream among them), the Responses POST pinned by a tagged {@code previous_response_id},
 * a new conversation, and the pinned GET, DELETE and POST of stored responses, conversations and their items. Each
 * gives what the client sends and what the engine must receive of it (the tag stripped from path and body, every other
 * byte unchanged); the admin listener's pages are not here.
 */
enum ClientRoute {
    CHAT("POST", "/v1/chat/completions", Kind.PLAIN),
    COMPLETIONS("POST", "/v1/completions", Kind.PLAIN),
    MESSAGES("POST", "/v1/messages", Kind.PLAIN),
    RESPONSES("POST", "/v1/responses", Kind.STRICT),
    RESPONSES_STREAMED("POST", "/v1/responses", Kind.STRICT),
    RESPONSES_PINNED("POST", "/v1/responses", Kind.STRICT),
    CONVERSATIONS("POST", "/v1/conversations", Kind.PLAIN),
    GET_RESPONSE("GET", "/v1/responses/resp", Kind.BODILESS),
    DELETE_RESPONSE("DELETE", "/v1/responses/resp", Kind.BODILESS),
    GET_INPUT_ITEMS("GET", "/v1/responses/resp", Kind.BODILESS),
    GET_CONVERSATION("GET", "/v1/conversations/conv", Kind.BODILESS),
    GET_ITEMS("GET", "/v1/conversations/conv", Kind.BODILESS),
    POST_ITEMS("POST", "/v1/conversations/conv", Kind.PLAIN),
    DELETE_ITEM("DELETE", "/v1/conversations/conv", Kind.BODILESS);

    /** How the gateway reads a route's body: not at all, forwarded as sent, or scanned strictly for stored ids. */
    enum Kind {
        BODILESS,
        PLAIN,
        STRICT
    }

    private final String method;
    private final String path;
    private final Kind kind;

    ClientRoute(String method, String path, Kind kind) {
        this.method = method;
        this.path = path;
        this.kind = kind;
    }

    String method() {
        return method;
    }

    Kind kind() {
        return kind;
    }

    boolean hasBody() {
        return kind != Kind.BODILESS;
    }

    /** Whether its answers are event streams. */
    boolean streams() {
        return this == RESPONSES_STREAMED;
    }

    ErrorShape errors() {
        return this == MESSAGES ? ErrorShape.ANTHROPIC : ErrorShape.OPENAI;
    }

    /** The target the client sends for the request named {@code nonce}. */
    String target(String nonce) {
        return path
                + switch (this) {
                    case GET_RESPONSE, DELETE_RESPONSE, GET_CONVERSATION -> ApiPath.TAG + nonce;
                    case GET_INPUT_ITEMS -> ApiPath.TAG + nonce + "/input_items";
                    case GET_ITEMS, POST_ITEMS -> ApiPath.TAG + nonce + "/items";
                    case DELETE_ITEM -> ApiPath.TAG + nonce + "/items/msg_" + nonce;
                    default -> "";
                };
    }

    /** The target the engine receives: the tag's site, cluster and mac stripped. */
    String engineTarget(String nonce) {
        return target(nonce).replace(ApiPath.TAG, "_");
    }

    /** A body the route accepts, naming {@code nonce}; empty for a bodiless route. */
    String body(String nonce, SplittableRandom random) {
        String text = TEXTS[random.nextInt(TEXTS.length)] + nonce;
        String model = random.nextInt(8) == 0 ? "" : "\"model\":\"demo-model\",";
        return switch (this) {
            case CHAT -> "{" + model + "\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]}";
            case COMPLETIONS -> "{" + model + "\"prompt\":\"" + text + "\",\"max_tokens\":3}";
            case MESSAGES ->
                "{" + model + "\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]}";
            case RESPONSES -> "{" + model + "\"input\":\"" + text + "\"}";
            case RESPONSES_STREAMED -> "{" + model + "\"input\":\"" + text + "\",\"stream\":true}";
            case RESPONSES_PINNED ->
                "{" + model + "\"input\":\"" + text + "\",\"previous_response_id\":\"resp" + ApiPath.TAG + nonce
                        + "\"}";
            case CONVERSATIONS -> "{\"metadata\":{\"who\":\"" + text + "\"}}";
            case POST_ITEMS -> "{\"items\":[{\"type\":\"message\",\"role\":\"user\",\"content\":\"" + text + "\"}]}";
            default -> "";
        };
    }

    /** {@code body} as the engine receives it. */
    static String engineBody(String body) {
        return body.replace(ApiPath.TAG, "_");
    }

    /** Texts a prompt starts with: escapes, astral and non-Latin characters, a look-alike of a stored id. */
    private static final String[] TEXTS = {
        "hi ", "h\\u00e9 \\ud83d\\ude00 ", "\u4e16\u754c ", "line\\nbreak \\\"q\\\" ", "resp_fake ", "\u00e9\u00e8 "
    };
}

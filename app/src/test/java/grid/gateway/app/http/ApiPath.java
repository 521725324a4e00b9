package grid.gateway.app.http;

import grid.gateway.routing.tag.ClusterDigest;

/**
 * Test fixture: the request kinds {@link UpstreamAnswersPathsPropertyTest} sends, one per way the gateway forwards
 * and relays: the untagged POSTs (errors in OpenAI's shape, or in Anthropic's), the tagged POSTs (held and tagged
 * whole or as they stream, or tagged event by event; on a stored object too, pinned by its tag), and the bodiless GET
 * and DELETE of a stored object and of its items, pinned by its tag. Each carries the request's nonce where the engine
 * finds it (the body, or the stored id in the path).
 */
enum ApiPath {
    CHAT("POST", "/v1/chat/completions", false, false),
    RESPONSES("POST", "/v1/responses", true, false),
    RESPONSES_STREAMED("POST", "/v1/responses", true, true),
    CONVERSATIONS("POST", "/v1/conversations", true, false),
    GET_RESPONSE("GET", "/v1/responses/", true, false),
    DELETE_RESPONSE("DELETE", "/v1/responses/", true, false),
    GET_ITEMS("GET", "/v1/conversations/", true, false),
    MESSAGES("POST", "/v1/messages", false, false),
    INPUT_ITEMS("GET", "/v1/responses/", true, false),
    CANCEL("POST", "/v1/responses/", true, false),
    ADD_ITEMS("POST", "/v1/conversations/", true, false),
    DELETE_ITEM("DELETE", "/v1/conversations/", true, false);

    /** The paths of the first kinds drawn: one a way the gateway relays an answer. */
    static final ApiPath[] ONE_PER_RELAY = {
        CHAT, RESPONSES, RESPONSES_STREAMED, CONVERSATIONS, GET_RESPONSE, DELETE_RESPONSE, GET_ITEMS
    };

    /** What a tag of cluster east-a puts between an id's prefix and the engine's id (no key: no mac). */
    static final String TAG = "_east." + ClusterDigest.of("east-a") + "..";

    private final String method;
    private final String path;
    private final boolean tagged;
    private final boolean events;

    ApiPath(String method, String path, boolean tagged, boolean events) {
        this.method = method;
        this.path = path;
        this.tagged = tagged;
        this.events = events;
    }

    boolean tagged() {
        return tagged;
    }

    /** Whether its answers are event streams. */
    boolean events() {
        return events;
    }

    /** The prefix of the stored ids in its answers. */
    String idPrefix() {
        return this == CONVERSATIONS || this == GET_ITEMS || this == ADD_ITEMS || this == DELETE_ITEM
                ? "conv_"
                : "resp_";
    }

    /** The whole request naming {@code nonce}. */
    String request(String nonce) {
        String head = method + " " + target(nonce) + " HTTP/1.1\r\nHost: gw\r\n";
        String body = body(nonce);
        if (body.isEmpty()) {
            return head + "\r\n";
        }
        return head + "Content-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body;
    }

    private String target(String nonce) {
        return switch (this) {
            case GET_RESPONSE, DELETE_RESPONSE -> path + "resp" + TAG + nonce;
            case INPUT_ITEMS -> path + "resp" + TAG + nonce + "/input_items";
            case CANCEL -> path + "resp" + TAG + nonce + "/cancel";
            case GET_ITEMS, ADD_ITEMS -> path + "conv" + TAG + nonce + "/items";
            case DELETE_ITEM -> path + "conv" + TAG + nonce + "/items/msg_" + nonce;
            default -> path;
        };
    }

    private String body(String nonce) {
        return switch (this) {
            case CHAT -> UpstreamAnswersIntegrationTest.chat(nonce);
            case RESPONSES -> "{\"model\":\"demo-model\",\"input\":\"who-" + nonce + "\"}";
            case RESPONSES_STREAMED -> "{\"model\":\"demo-model\",\"input\":\"who-" + nonce + "\",\"stream\":true}";
            case CONVERSATIONS -> "{\"metadata\":{\"who\":\"" + nonce + "\"}}";
            case MESSAGES ->
                "{\"model\":\"demo-model\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"who-" + nonce
                        + "\"}]}";
            case CANCEL -> "{}";
            case ADD_ITEMS ->
                "{\"items\":[{\"type\":\"message\",\"role\":\"user\",\"content\":\"who-" + nonce + "\"}]}";
            default -> "";
        };
    }

    /**
     * Whether {@code got} is the gateway's own 502 in this path's error shape (Anthropic's for {@link #MESSAGES},
     * else OpenAI's).
     */
    boolean gatewayError(RawClient.Answer got) {
        String shape =
                this == MESSAGES ? "{\"type\":\"error\",\"error\":{\"type\":\"api_error\"" : "\"code\":\"bad_gateway\"";
        return got.status() == 502 && got.body().contains(shape);
    }

    /** {@code body} as a client reads it with the ids the gateway tagged read back as the engine wrote them. */
    static String untagged(String body) {
        return body.replace("resp" + TAG, "resp_").replace("conv" + TAG, "conv_");
    }
}

package grid.gateway.app.http;

import grid.gateway.routing.tag.ClusterDigest;

/**
 * Test fixture: the request kinds {@link UpstreamAnswersPathsPropertyTest} sends, one per way the gateway forwards
 * and relays: an untagged POST, the tagged POSTs (held and tagged whole or as they stream, or tagged event by event),
 * and the bodiless GET and DELETE of a stored object, pinned by its tag. Each carries the request's nonce where the
 * engine finds it (the body, or the stored id in the path).
 */
enum ApiPath {
    CHAT("POST", "/v1/chat/completions", false, false),
    RESPONSES("POST", "/v1/responses", true, false),
    RESPONSES_STREAMED("POST", "/v1/responses", true, true),
    CONVERSATIONS("POST", "/v1/conversations", true, false),
    GET_RESPONSE("GET", "/v1/responses/", true, false),
    DELETE_RESPONSE("DELETE", "/v1/responses/", true, false),
    GET_ITEMS("GET", "/v1/conversations/", true, false);

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
        return this == CONVERSATIONS || this == GET_ITEMS ? "conv_" : "resp_";
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
            case GET_ITEMS -> path + "conv" + TAG + nonce + "/items";
            default -> path;
        };
    }

    private String body(String nonce) {
        return switch (this) {
            case CHAT -> UpstreamAnswersIntegrationTest.chat(nonce);
            case RESPONSES -> "{\"model\":\"demo-model\",\"input\":\"who-" + nonce + "\"}";
            case RESPONSES_STREAMED -> "{\"model\":\"demo-model\",\"input\":\"who-" + nonce + "\",\"stream\":true}";
            case CONVERSATIONS -> "{\"metadata\":{\"who\":\"" + nonce + "\"}}";
            default -> "";
        };
    }

    /** {@code body} as a client reads it with the ids the gateway tagged read back as the engine wrote them. */
    static String untagged(String body) {
        return body.replace("resp" + TAG, "resp_").replace("conv" + TAG, "conv_");
    }
}

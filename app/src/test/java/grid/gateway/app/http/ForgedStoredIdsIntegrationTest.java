package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.routing.tag.ClusterDigest;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An engine's stored id that already reads as a tag of another cluster, in each kind of tagged answer, as the client's
 * JSON parser reads it: it never leaves naming that cluster, so the client's next request naming it reaches no other
 * cluster than the one that served the answer (docs/stored-ids.md: ids leave tagged with the cluster that stored them).
 * Two clusters of site east: east-a, the engine that answers, and east-b, which must see nothing.
 */
class ForgedStoredIdsIntegrationTest extends BehindAFreshGateway {
    /** A tag of east-a naming the engine id {@code resp_abc}. */
    private static final String SERVED_BY_A = "resp_east." + ClusterDigest.of("east-a") + "..abc";
    /** A tag of east-b, without a mac: the gateway runs without a key, so it pins to east-b. */
    private static final String TAG_OF_B = "resp_east." + ClusterDigest.of("east-b") + "..forged";

    private final ScriptedUpstream elsewhere = new ScriptedUpstream();

    /** How the engine's answer carries the id. */
    enum Answer {
        /** A short JSON answer, held and tagged whole. */
        JSON,
        /** An event of an event stream, tagged event by event. */
        EVENT,
        /** A JSON answer over 64 KiB, tagged as it streams. */
        LONG_JSON;

        String wire(String id) {
            return wireMembers("\"id\":\"" + id + "\"");
        }

        /** The answer carrying a response object made of {@code members} (JSON text of members, comma-separated). */
        String wireMembers(String members) {
            return switch (this) {
                case JSON -> json("{" + members + ",\"object\":\"response\"}");
                case EVENT ->
                    ScriptedUpstream.SSE_HEAD
                            + UpstreamFaultsIntegrationTest.chunk("event: response.created\ndata: {\"type\":"
                                    + "\"response.created\",\"response\":{" + members + "}}\n\n")
                            + "0\r\n\r\n";
                case LONG_JSON -> json("{" + members + ",\"output_text\":\"" + "x".repeat(70_000) + "\"}");
            };
        }

        /** The stored id the client's parser reads in {@code body}. */
        String idIn(String body) {
            return responseIn(body).getString("id");
        }

        /** The response object the client's parser reads in {@code body}. */
        JsonObject responseIn(String body) {
            String json = this == EVENT ? body.substring(body.indexOf("data: ") + 6, body.indexOf("\n\n")) : body;
            try (JsonReader reader = Json.createReader(new StringReader(json))) {
                JsonObject object = reader.readObject();
                return this == EVENT ? object.getJsonObject("response") : object;
            }
        }

        private static String json(String body) {
            return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                    + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body;
        }
    }

    @Override
    String sites(String url) {
        return GatewayHarness.oneSite(url, elsewhere.url());
    }

    @AfterEach
    void closeElsewhere() {
        elsewhere.close();
    }

    @ParameterizedTest
    @EnumSource(Answer.class)
    void engineIdLookingLikeATagOfAnotherCluster_neverLeavesNamingIt(Answer kind) throws IOException {
        assertForgedIdReachesNoOtherCluster(kind, TAG_OF_B);
    }

    @ParameterizedTest
    @EnumSource(Answer.class)
    void tagOfAnotherClusterWrittenWithEscapes_neverLeavesNamingIt(Answer kind) throws IOException {
        // Every character escaped, and long: 1,356 bytes as written, a tag of 226 characters as the client reads it.
        assertForgedIdReachesNoOtherCluster(kind, escaped(TAG_OF_B + "x".repeat(200)));
    }

    @ParameterizedTest
    @EnumSource(Answer.class)
    void engineIdWrittenWithEscapes_clientReadsItTaggedWithTheServingCluster(Answer kind) throws IOException {
        engine.script = e -> e.write(kind.wire("\\u0072esp_ab\\u0063"));
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.send("GET /v1/responses/" + SERVED_BY_A + " HTTP/1.1\r\nHost: gw\r\n\r\n");
            RawClient.Answer answer = client.read();
            assertThat(answer.status()).isEqualTo(200);
            assertThat(kind.idIn(answer.body())).isEqualTo(SERVED_BY_A);
        }
    }

    /**
     * An answer whose ids are in bytes the taggers do not read as a client may: JSON after a byte order mark or in
     * UTF-16 (a client's parser may ignore the one and detect the other), an event stream after a byte order mark
     * (which an event stream's reader drops), JSON after white space in UTF-16 or UTF-32 labelled an event stream (its
     * first byte no brace, a JSON parser detects the encoding by the NULs). Tagged it cannot be; relayed untagged, it
     * would hand the client a tag of east-b: 502, as for a compressed answer.
     */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "json utf-8 bom",
                "json utf-16le bom",
                "json utf-16be",
                "json utf-16le",
                "events utf-8 bom",
                "spaced-json-as-events utf-16le",
                "spaced-json-as-events utf-32le"
            })
    void idsInAnEncodingTheTaggersDoNotRead_502_noIdReachesTheClient(String encoding) throws IOException {
        boolean events = !encoding.startsWith("json ");
        String json = "{\"id\":\"" + TAG_OF_B + "\",\"object\":\"response\"}";
        String text = encoding.startsWith("events")
                ? "event: response.created\ndata: {\"response\":{\"id\":\"" + TAG_OF_B + "\"}}\n\n"
                : encoding.startsWith("spaced") ? " " + json : json;
        byte[] body = switch (encoding.substring(encoding.indexOf(' ') + 1)) {
            case "utf-8 bom" ->
                concat(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, text, StandardCharsets.UTF_8);
            case "utf-16le bom" -> concat(new byte[] {(byte) 0xFF, (byte) 0xFE}, text, StandardCharsets.UTF_16LE);
            case "utf-16be" -> text.getBytes(StandardCharsets.UTF_16BE);
            case "utf-32le" -> text.getBytes(java.nio.charset.Charset.forName("UTF-32LE"));
            default -> text.getBytes(StandardCharsets.UTF_16LE);
        };
        engine.script = e -> e.write("HTTP/1.1 200 OK\r\nContent-Type: "
                + (events ? "text/event-stream" : "application/json") + "\r\nContent-Length: " + body.length
                + "\r\n\r\n" + new String(body, StandardCharsets.ISO_8859_1));
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.send("GET /v1/responses/" + SERVED_BY_A + " HTTP/1.1\r\nHost: gw\r\n\r\n");
            RawClient.Answer answer = client.read();
            assertThat(answer.status()).isEqualTo(502);
            assertThat(answer.body()).contains("bad_gateway").doesNotContain("forged");
        }
    }

    /**
     * An id after values no strict JSON parser reads but Python's does ({@code NaN}, {@code -Infinity}), and a client's
     * reader may well be: it is tagged all the same, in a JSON answer, an event, a long JSON answer.
     */
    @ParameterizedTest
    @ValueSource(strings = {"json", "event", "long json"})
    void idAfterValuesOnlyLenientParsersRead_taggedAllTheSame(String kind) throws IOException {
        String json = "{\"logprob\":-Infinity,\"x\":NaN,\"id\":\"" + TAG_OF_B + "\",\"text\":\""
                + (kind.equals("long json") ? "x".repeat(70_000) : "x") + "\"}";
        String wire = kind.equals("event")
                ? ScriptedUpstream.SSE_HEAD
                        + UpstreamFaultsIntegrationTest.chunk(
                                "event: response.created\ndata: {\"response\":" + json + "}\n\n")
                        + "0\r\n\r\n"
                : "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + json.length() + "\r\n\r\n"
                        + json;
        engine.script = e -> e.write(wire);
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.send("GET /v1/responses/" + SERVED_BY_A + " HTTP/1.1\r\nHost: gw\r\n\r\n");
            RawClient.Answer answer = client.read();
            assertThat(answer.status()).isEqualTo(200);
            assertThat(answer.body())
                    .doesNotContain("\"" + TAG_OF_B + "\"")
                    .contains("\"resp_east." + ClusterDigest.of("east-a") + "..east.");
        }
    }

    /**
     * Stored ids under member names a client's parser matches in any letter case (Go's {@code encoding/json}: a struct
     * field {@code ID} takes {@code "ID"}, {@code "Id"}, {@code "previou\u017f_response_id"}; Json.NET and .NET's web
     * defaults: {@code "\u0131d"} too), after the exact name, so a parser that keeps the last of them reads a tag of
     * east-b unless each is tagged: every one reaches the client as a tag of east-a.
     */
    @ParameterizedTest
    @EnumSource(Answer.class)
    void idMembersInAnyLetterCase_eachTaggedWithTheServingCluster(Answer kind) throws IOException {
        String conversationOfB = "conv_east." + ClusterDigest.of("east-b") + "..forged";
        engine.script = e -> e.write(kind.wireMembers("\"id\":\"resp_abc\",\"ID\":\"" + TAG_OF_B + "\",\"Id\":\""
                + TAG_OF_B + "\",\"\\u0131d\":\"" + TAG_OF_B + "\",\"Previous_Response_Id\":\"" + TAG_OF_B
                + "\",\"previou\\u017f_response_id\":\"" + TAG_OF_B + "\",\"CONVERSATION\":{\"iD\":\""
                + conversationOfB + "\"}"));
        JsonObject response;
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.send("GET /v1/responses/" + SERVED_BY_A + " HTTP/1.1\r\nHost: gw\r\n\r\n");
            RawClient.Answer answer = client.read();
            assertThat(answer.status()).isEqualTo(200);
            response = kind.responseIn(answer.body());
        }
        String servedByA = "resp_east." + ClusterDigest.of("east-a") + "..";
        for (String name : List.of("ID", "Id", "\u0131d", "Previous_Response_Id", "previou\u017f_response_id")) {
            assertThat(response.getString(name)).as(name).startsWith(servedByA).isNotEqualTo(TAG_OF_B);
        }
        assertThat(response.getJsonObject("CONVERSATION").getString("iD"))
                .startsWith("conv_east." + ClusterDigest.of("east-a") + "..");
        assertThat(elsewhere.requests()).as("requests east-b got").isEmpty();
    }

    /**
     * A tag of another cluster past a flaw that a lenient parser reads on through (Json.NET: single quotes, a comment
     * holding a quote, an unquoted name, a trailing comma; JSON5: a line continuation inside the id; any reader: a
     * second text after the first): past the flaw every id prefix gets east-a's head, so whatever such a client reads
     * as an id names east-a or no cluster.
     */
    @ParameterizedTest
    @EnumSource(Answer.class)
    void tagOfAnotherClusterPastAFlawALenientParserReadsOn_reachesTheClientUnderTheServingClustersHead(Answer kind)
            throws IOException {
        String tagOfB = TAG_OF_B.substring("resp_".length());
        List<String> variants = new java.util.ArrayList<>(List.of(
                "\"x\":'y','id':'resp_" + tagOfB + "'",
                "\"x\":1,/* \" */\"id\":\"resp_" + tagOfB + "\"",
                "\"x\":1,id:\"resp_" + tagOfB + "\"",
                "\"x\":[1,],\"id\":\"resp_" + tagOfB + "\"",
                "\"x\":1}{\"id\":\"resp_" + tagOfB + "\""));
        if (kind != Answer.EVENT) {
            variants.add("\"id\":\"res\\\np_" + tagOfB + "\""); // in an event, a raw line end ends the data line
        }
        for (String members : variants) {
            engine.script = e -> e.write(kind.wireMembers(members));
            try (RawClient client = new RawClient(gateway.server.port())) {
                client.send("GET /v1/responses/" + SERVED_BY_A + " HTTP/1.1\r\nHost: gw\r\n\r\n");
                RawClient.Answer answer = client.read();
                assertThat(answer.status()).as(members).isEqualTo(200);
                assertThat(answer.body())
                        .as(members)
                        .doesNotContain("resp_" + tagOfB)
                        .doesNotContain("p_" + tagOfB)
                        .contains("_east." + ClusterDigest.of("east-a") + ".." + tagOfB);
            }
        }
        assertThat(elsewhere.requests()).as("requests east-b got").isEmpty();
    }

    /**
     * A tagged answer whose {@code Content-Type} declares a charset other than UTF-8: a client that decodes by it may
     * read members the taggers do not see. In Shift_JIS the byte 0x81 takes the backslash after it, so the string the
     * taggers read as {@code "\x81\",..."} ends at that quote for such a client, and the id member after it (which
     * the taggers read as a flaw, after which nothing is tagged) names east-b. 502, as for a content coding; UTF-8
     * declared in any spelling is relayed.
     */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "502 application/json; charset=Shift_JIS",
                "502 application/json;charset=\"iso-2022-jp\"",
                "502 application/json; charset=utf-8; charset=shift_jis",
                "502 text/event-stream; charset=utf-16",
                "200 application/json; charset=UTF-8",
                "200 application/json; charset=\"utf8\"",
                "200 application/json; charset",
                "200 application/json; charset=",
                "200 text/event-stream; charset=utf-8"
            })
    void charsetOtherThanUtf8_502_noIdReachesTheClient(String statusAndType) throws IOException {
        int status = Integer.parseInt(statusAndType.substring(0, 3));
        String contentType = statusAndType.substring(4);
        String body = contentType.startsWith("text/event-stream")
                ? "event: response.created\ndata: {\"response\":{\"id\":\"resp_abc\"}}\n\n"
                : "{\"a\":\"\u0081\\\",\"id\":\"" + TAG_OF_B + "\",\"b\":\"x\"}";
        byte[] bytes = body.getBytes(StandardCharsets.ISO_8859_1);
        engine.script = e -> e.write("HTTP/1.1 200 OK\r\nContent-Type: " + contentType + "\r\nContent-Length: "
                + bytes.length + "\r\n\r\n" + body);
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.send("GET /v1/responses/" + SERVED_BY_A + " HTTP/1.1\r\nHost: gw\r\n\r\n");
            RawClient.Answer answer = client.read();
            assertThat(answer.status()).isEqualTo(status);
            if (status == 502) {
                assertThat(answer.body()).contains("bad_gateway").doesNotContain("forged");
            }
        }
    }

    private static byte[] concat(byte[] mark, String text, java.nio.charset.Charset charset) {
        byte[] bytes = text.getBytes(charset);
        byte[] all = Arrays.copyOf(mark, mark.length + bytes.length);
        System.arraycopy(bytes, 0, all, mark.length, bytes.length);
        return all;
    }

    /**
     * A JSON answer labelled an event stream whose first read is a blank line alone: the label makes it an event
     * stream, but a client that asked without {@code stream} parses the body as JSON, and reads the lines no
     * event-stream reader reads. The tag of east-b there leaves under the serving cluster's head.
     */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "{\"id\":\"%s\",\"object\":\"response\"}",
                "{\"object\":\"response\",\n\"id\"\n:\"%s\"}",
                "{\"id\":\"\\u%04x%s\"}"
            })
    void jsonLabelledAnEventStream_afterABlankFirstRead_noTagOfAnotherClusterReachesTheClient(String body)
            throws IOException {
        String json =
                body.contains("\\u") ? String.format(body, (int) 'r', TAG_OF_B.substring(1)) : body.formatted(TAG_OF_B);
        engine.script = e -> {
            e.write(ScriptedUpstream.SSE_HEAD + UpstreamFaultsIntegrationTest.chunk("\n"));
            e.awaitReadByTheGateway();
            e.write(UpstreamFaultsIntegrationTest.chunk(json) + "0\r\n\r\n");
        };
        String id;
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.send("GET /v1/responses/" + SERVED_BY_A + " HTTP/1.1\r\nHost: gw\r\n\r\n");
            RawClient.Answer answer = client.read();
            assertThat(answer.status()).isEqualTo(200);
            try (JsonReader reader =
                    Json.createReader(new StringReader(answer.body().strip()))) {
                id = reader.readObject().getString("id");
            }
        }
        assertNamesNoOtherCluster(id);
    }

    /** {@code text} as JSON string content with every character escaped ({@code \\u0072…}). */
    private static String escaped(String text) {
        StringBuilder out = new StringBuilder();
        text.chars().forEach(c -> out.append(String.format("\\u%04x", c)));
        return out.toString();
    }

    private void assertForgedIdReachesNoOtherCluster(Answer kind, String engineId) throws IOException {
        engine.script = e -> e.write(kind.wire(engineId));
        String id;
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.send("GET /v1/responses/" + SERVED_BY_A + " HTTP/1.1\r\nHost: gw\r\n\r\n");
            RawClient.Answer answer = client.read();
            assertThat(answer.status()).isEqualTo(200);
            id = kind.idIn(answer.body());
        }
        assertNamesNoOtherCluster(id);
    }

    /** The id a client read is not east-b's tag, and the client's next request naming it reaches no cluster. */
    private void assertNamesNoOtherCluster(String id) throws IOException {
        assertThat(id).as("the id the client read").isNotEqualTo(TAG_OF_B);
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.send("GET /v1/responses/" + id + " HTTP/1.1\r\nHost: gw\r\n\r\n");
            assertThat(client.read().status())
                    .as("the client's next request naming it")
                    .isEqualTo(404);
        }
        assertThat(elsewhere.requests()).as("requests east-b got").isEmpty();
    }
}

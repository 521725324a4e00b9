package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.http.StreamFates.Answer;
import grid.gateway.app.http.StreamFates.Fate;
import grid.gateway.app.http.StreamFates.Trial;
import grid.gateway.app.http.StreamingClientFatesPropertyTest.Got;
import grid.gateway.app.http.StreamingClientFatesPropertyTest.Saw;
import grid.gateway.routing.tag.ClusterDigest;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.net.Socket;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Test fixture for {@link StreamingClientFatesPropertyTest}: what one trial's client, engine and access line must
 * show given its fate, how the engines' connections must have been pooled, and how the metrics must balance.
 */
final class StreamChecks {
    private static final Pattern STORED_ID = Pattern.compile("\"id\":\"(resp_[^\"]*)\"");
    private static final List<String> CLUSTERS = List.of("east-a", "east-b");

    private StreamChecks() {}

    private static Integer number(JsonObject line, String field) {
        return line.get(field) == null || line.get(field) == JsonValue.NULL ? null : line.getInt(field);
    }

    private static String text(JsonObject line, String field) {
        return line.get(field) == null || line.get(field) == JsonValue.NULL ? null : line.getString(field);
    }

    /** One trial: what its client got, what its engine saw, what its access line says. */
    static void trial(Trial trial, Got got, Saw saw, Map<String, JsonObject> lines) {
        assertThat(saw).as("the engine played it").isNotNull();
        JsonObject line = lines.get(trial.requestId());
        assertThat(line).as("its access line").isNotNull();
        Answer answer = got.answer();
        tags(trial, answer.body(), saw.cluster());
        Integer upstream = number(line, "upstream_status");
        if (upstream != null) {
            assertThat(upstream).isEqualTo(200);
            assertThat(text(line, "cluster")).as("the cluster that served it").isEqualTo(saw.cluster());
        }
        if (answer.status() >= 0) {
            assertThat(answer.status()).isEqualTo(200);
        }
        switch (trial.fate()) {
            case RESET, CLOSE -> {
                // Closed within a wait shorter than every timeout that could close it: cancelled, not timed out.
                assertThat(saw.closed()).as("the engine's request cancelled").isTrue();
                assertThat(text(line, "end")).isEqualTo("client_gone");
                assertThat(number(line, "status")).isIn(null, 200);
            }
            case CLOSE_AT_LAST -> {
                assertThat(text(line, "end")).isIn("answered", "client_gone");
                assertThat(number(line, "status")).isEqualTo(200);
                assertThat(upstream).isEqualTo(200);
            }
            default -> whole(trial, got, saw, line, lines);
        }
    }

    /** A client that stayed: its whole stream, the engine's connection kept, its line answered. */
    private static void whole(Trial trial, Got got, Saw saw, JsonObject line, Map<String, JsonObject> lines) {
        Answer answer = got.answer();
        assertThat(answer.status()).as("its status").isEqualTo(200);
        assertThat(answer.complete()).as("its answer whole").isTrue();
        int from = 0;
        for (int i = 0; i < trial.events(); i++) {
            int at = answer.body().indexOf("\"n\":" + i + "}\n\n", from);
            assertThat(at).as("event %s in order", i).isGreaterThanOrEqualTo(from);
            from = at;
        }
        assertThat(answer.body()).endsWith(StreamFates.lastEventEnd(trial));
        assertThat(saw.writeFailed()).as("the engine's writes all taken").isFalse();
        assertThat(saw.closed()).as("the engine's connection kept").isFalse();
        assertThat(text(line, "end")).isEqualTo("answered");
        assertThat(number(line, "status")).isEqualTo(200);
        assertThat(number(line, "upstream_status")).isEqualTo(200);
        switch (trial.fate()) {
            case HALF_CLOSE ->
                assertThat(got.endOfStream()).as("closed after the answer").isTrue();
            case PIPELINE -> {
                assertThat(got.second().status()).isEqualTo(200);
                assertThat(got.second().complete()).isTrue();
                JsonObject second = lines.get(trial.requestId() + "-p");
                assertThat(second).as("the pipelined request's line").isNotNull();
                assertThat(text(second, "end")).isEqualTo("answered");
            }
            case JUNK -> {
                assertThat(got.second().status())
                        .as("the junk refused in the gateway's own words")
                        .isBetween(400, 499);
                assertThat(got.second().complete()).isTrue();
                assertThat(got.endOfStream()).as("closed after the refusal").isTrue();
            }
            default -> {
                // the stream alone
            }
        }
    }

    /** Every stored id a client got names the cluster that served it. */
    private static void tags(Trial trial, String body, String cluster) {
        Matcher id = STORED_ID.matcher(body == null ? "" : body);
        while (id.find()) {
            assertThat(id.group(1)).isEqualTo("resp_east." + ClusterDigest.of(cluster) + ".." + trial.nonce());
        }
    }

    /**
     * No engine connection was closed while it waited for a next request: every answer read whole (a client's close as
     * its last event came included: the answer is read to its end before the last write to the client) left its
     * connection in the pool, and the connections of answers the gateway abandoned were closed during them.
     */
    static void pooling(
            List<Trial> all,
            Map<Integer, Saw> saw,
            Map<Socket, Integer> lastOn,
            Set<Socket> closedByA,
            Set<Socket> closedByB) {
        for (Set<Socket> closed : List.of(closedByA, closedByB)) {
            for (Socket socket : closed) {
                Integer n = lastOn.get(socket);
                assertThat(n).as("a connection closed before any request").isNotNull();
                throw new AssertionError(
                        "the connection of a whole answer closed unused: " + all.get(n) + ", " + saw.get(n));
            }
        }
    }

    /** The metrics against the lines. */
    static void books(List<Trial> all, Map<Integer, Got> got, Map<String, JsonObject> lines, Books books) {
        Map<String, Long> answers = new TreeMap<>();
        for (JsonObject line : lines.values()) {
            Integer upstream = number(line, "upstream_status");
            if (upstream != null) {
                answers.merge(text(line, "cluster") + " " + upstream, 1L, Long::sum);
            }
        }
        Map<String, Long> counted = new TreeMap<>();
        for (String cluster : CLUSTERS) {
            for (Books.Sample s : books.matching("grid_upstream_requests_total", "cluster", "east/" + cluster)) {
                if (s.value() != 0) {
                    counted.merge(cluster + " " + s.labels().get("status"), (long) s.value(), Long::sum);
                }
            }
        }
        assertThat(counted).as("upstream answers counted against the lines").isEqualTo(answers);
        long refusals = all.stream()
                .filter(t -> t.fate() == Fate.JUNK)
                .filter(t -> got.get(t.n()).second().status() >= 400)
                .count();
        long pipelined = all.stream().filter(t -> t.fate() == Fate.PIPELINE).count();
        assertThat(lines).as("one line per request").hasSize((int) (all.size() + pipelined + refusals));
        assertThat(books.sum("grid_requests_refused_total")).as("junk refused").isEqualTo(refusals);
        for (String none : List.of(
                "grid_upstream_errors_total",
                "grid_upstream_retries_total",
                "grid_upstream_leftovers_total",
                "grid_client_send_timeouts_total",
                "grid_requests_in_flight",
                "grid_inflight_body_bytes",
                "grid_inflight_answer_bytes")) {
            assertThat(books.sum(none)).as(none).isZero();
        }
    }
}

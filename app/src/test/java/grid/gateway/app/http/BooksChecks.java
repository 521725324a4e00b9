package grid.gateway.app.http;

import static grid.gateway.app.http.AccountingChecks.number;
import static grid.gateway.app.http.AccountingChecks.text;
import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.http.AccountingPropertyTest.Got;
import grid.gateway.app.http.BooksMix.Fate;
import grid.gateway.app.http.BooksMix.Trial;
import grid.gateway.app.trace.OtlpReceiver;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import jakarta.json.JsonObject;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Test fixture for {@link BooksPropertyTest}: what one request's access line must say given its fate and what its
 * client got; how the metrics and the spans must sum over the lines and the engines' sightings.
 */
final class BooksChecks {
    private BooksChecks() {}

    /** The line of one request: the status its client got, the cluster that served it, the end its fate gives. */
    static void line(Trial trial, Got got, JsonObject line, List<String> played) {
        Integer status = number(line, "status");
        String end = text(line, "end");
        if (got.status() >= 0) {
            assertThat(status).as("status logged").isEqualTo(got.status());
        }
        if (!played.isEmpty()) {
            assertThat(text(line, "cluster")).as("the cluster that served it").isEqualTo(played.getLast());
        }
        switch (trial.fate()) {
            case PLAIN, STREAMED, ENGINE_ERROR, STORED_GET -> answered(line, got, trial.status());
            case GONE_DURING -> {
                assertThat(got.status()).isEqualTo(200);
                assertThat(end).isEqualTo("client_gone");
                assertThat(number(line, "upstream_status")).isEqualTo(200);
            }
            case GONE_BEFORE -> {
                assertThat(end).isEqualTo("client_gone");
                assertThat(status).as("nothing was sent").isNull();
                assertThat(number(line, "upstream_status")).isNull();
            }
            case ENGINE_RESET -> {
                if (played.size() == 2) {
                    answered(line, got, 200);
                } else {
                    refused(line, got, 502);
                    assertThat(text(line, "upstream_failure")).isEqualTo("reset");
                }
            }
            case ENGINE_CUT -> {
                // Cut inside its first event: relayed as it came (the line ends upstream_cut), or, when nothing of its
                // body had gone out, the gateway's 502.
                if (got.status() == 200) {
                    assertThat(got.complete()).isFalse();
                    assertThat(end).isEqualTo("upstream_cut");
                } else {
                    refused(line, got, 502);
                }
                assertThat(number(line, "upstream_status")).isEqualTo(200);
            }
            case ENGINE_TIMEOUT -> {
                refused(line, got, 504);
                assertThat(text(line, "upstream_failure")).isEqualTo("timeout");
            }
            case PIN_DOWN -> {
                refused(line, got, 503);
                assertThat(text(line, "stored_id_cluster")).isEqualTo("east-down");
                // Pinned when sent there (a connect failure); a cluster that admits nothing is not sent to.
                assertThat(line.getBoolean("pinned")).isEqualTo("east-down".equals(text(line, "cluster")));
                if (line.getBoolean("pinned")) {
                    assertThat(text(line, "upstream_failure")).isEqualTo("connect");
                }
            }
            case NO_PATH -> refused(line, got, 404);
            case NO_METHOD -> refused(line, got, 405);
            case TOO_LARGE -> refused(line, got, 413);
            case BAD_BODY -> refused(line, got, 400);
            case BUDGET -> refused(line, got, 503);
        }
    }

    private static void answered(JsonObject line, Got got, int status) {
        assertThat(got.status()).as("client's status").isEqualTo(status);
        assertThat(got.complete()).as("client's answer whole").isTrue();
        assertThat(text(line, "end")).isEqualTo("answered");
        assertThat(number(line, "upstream_status")).isEqualTo(status);
        if (got.complete()) {
            assertThat(line.getInt("bytes_out")).as("body bytes the client got").isEqualTo(got.bodyBytes());
        }
    }

    private static void refused(JsonObject line, Got got, int status) {
        assertThat(got.status()).as("client's status").isEqualTo(status);
        assertThat(text(line, "end")).isEqualTo("refused");
    }

    /** The metrics against the lines and what the engines saw. */
    static void metrics(
            List<Trial> trials, Map<String, JsonObject> lines, Map<String, List<String>> plays, Books books) {
        Map<String, Long> expected = new TreeMap<>();
        for (JsonObject line : lines.values()) {
            String cluster = text(line, "cluster");
            Integer upstream = number(line, "upstream_status");
            if (upstream != null) {
                expected.merge("requests " + cluster + " " + upstream, 1L, Long::sum);
            }
            String failure = text(line, "upstream_failure");
            if (failure != null) {
                expected.merge("errors " + cluster + " " + failure, 1L, Long::sum);
            }
            String affinity = text(line, "affinity");
            if (affinity != null) {
                expected.merge("affinity " + affinity, 1L, Long::sum);
            }
            if ("client_gone".equals(text(line, "end"))) {
                expected.merge(
                        "gone " + (number(line, "status") == null ? "before_answer" : "during_answer"), 1L, Long::sum);
            }
        }
        long pinDown = 0;
        for (Trial trial : trials) {
            List<String> played = plays.getOrDefault(trial.nonce(), List.of());
            if (played.size() == 2) {
                expected.merge("retries " + played.getFirst() + " stale_connection", 1L, Long::sum);
            }
            String refusal = switch (trial.fate()) {
                case NO_PATH -> "path_not_found";
                case NO_METHOD -> "method_not_allowed";
                case TOO_LARGE -> "body_too_large";
                case BAD_BODY -> "body_unreadable";
                case BUDGET -> "body_budget";
                default -> null;
            };
            if (refusal != null) {
                expected.merge("refused " + refusal, 1L, Long::sum);
            }
            if (trial.fate() == Fate.BUDGET) {
                // Its holder left mid-body.
                expected.merge("refused body_unreadable", 1L, Long::sum);
            }
            if (trial.fate() == Fate.STORED_GET) {
                expected.merge("pinned routed", 1L, Long::sum);
            }
            if (trial.fate() == Fate.PIN_DOWN) {
                pinDown++;
            }
        }
        Map<String, Long> found = found(books);
        // A stored id of east-down is routed there until three connect failures eject it, then answered unavailable.
        long connects = found.getOrDefault("errors east-down connect", 0L);
        // (two sent at once may both pass before the third failure: at least three, at most all)
        assertThat(connects).isBetween(Math.min(3, pinDown), pinDown);
        expected.merge("pinned routed", connects, Long::sum);
        expected.merge("pinned unavailable", pinDown - connects, Long::sum);
        expected.values().removeIf(v -> v == 0);
        assertThat(found)
                .as("the books (metrics) against the access lines and the engines")
                .isEqualTo(expected);
        for (String gauge :
                List.of("grid_requests_in_flight", "grid_inflight_body_bytes", "grid_inflight_answer_bytes")) {
            assertThat(books.sum(gauge)).as(gauge).isZero();
        }
    }

    /** What the metrics say, in the keys {@link #metrics} sums the lines into; zero counts left out. */
    private static Map<String, Long> found(Books books) {
        Map<String, Long> found = new TreeMap<>();
        for (Books.Sample s : books.matching("grid_upstream_requests_total")) {
            put(found, "requests " + name(s) + " " + s.labels().get("status"), s.value());
        }
        for (Books.Sample s : books.matching("grid_upstream_errors_total")) {
            put(found, "errors " + name(s) + " " + s.labels().get("kind"), s.value());
        }
        for (Books.Sample s : books.matching("grid_upstream_retries_total")) {
            put(found, "retries " + name(s) + " " + s.labels().get("reason"), s.value());
        }
        for (Books.Sample s : books.matching("grid_requests_refused_total")) {
            put(found, "refused " + s.labels().get("reason"), s.value());
        }
        for (Books.Sample s : books.matching("grid_route_pinned_total")) {
            put(found, "pinned " + s.labels().get("outcome"), s.value());
        }
        for (Books.Sample s : books.matching("grid_route_prefix_affinity_total")) {
            put(found, "affinity " + s.labels().get("outcome"), s.value());
        }
        for (Books.Sample s : books.matching("grid_client_gone_total")) {
            put(found, "gone " + s.labels().get("stage"), s.value());
        }
        return found;
    }

    private static String name(Books.Sample s) {
        String cluster = s.labels().get("cluster");
        return cluster.substring(cluster.indexOf('/') + 1);
    }

    private static void put(Map<String, Long> found, String key, double value) {
        if (value != 0) {
            found.merge(key, (long) value, Long::sum);
        }
    }

    /**
     * The spans against the lines: one server span per request that reached the proxy (a 404 or 405 answered before
     * the body is not traced), with the status its line gives and none when nothing was sent, and one client span per
     * try upstream.
     */
    static void spans(
            List<Trial> trials,
            Map<String, JsonObject> lines,
            Map<String, List<String>> plays,
            List<OtlpReceiver.Received> spans) {
        Map<String, List<Span>> byTrace = new TreeMap<>();
        for (OtlpReceiver.Received received : spans) {
            byTrace.computeIfAbsent(
                            HexFormat.of()
                                    .formatHex(received.span().getTraceId().toByteArray()),
                            t -> new java.util.ArrayList<>())
                    .add(received.span());
        }
        long holders = 0;
        for (Trial trial : trials) {
            List<Span> mine = byTrace.getOrDefault(trial.traceId(), List.of());
            List<Span> servers = kind(mine, Span.SpanKind.SPAN_KIND_SERVER);
            List<Span> clients = kind(mine, Span.SpanKind.SPAN_KIND_CLIENT);
            JsonObject line = lines.get(trial.requestId());
            String what = trial + ", logged " + line + ", spans " + mine;
            assertThat(servers)
                    .as("server spans of %s", what)
                    .hasSize(trial.fate().traced() ? 1 : 0);
            List<String> played = plays.getOrDefault(trial.nonce(), List.of());
            // A stale connection's request sent again to the same cluster is one try: its span says it was resent.
            boolean resent = played.size() == 2;
            long tries = played.size() - (resent ? 1 : 0) + ("east-down".equals(text(line, "cluster")) ? 1 : 0);
            assertThat(clients).as("client spans of %s", what).hasSize((int) tries);
            for (Span client : clients) {
                assertThat(client.getAttributesList().stream()
                                .filter(kv -> kv.getKey().equals("http.request.resend_count"))
                                .map(kv -> kv.getValue().getIntValue())
                                .toList())
                        .as("the resend count of %s", what)
                        .isEqualTo(resent ? List.of(1L) : List.of());
            }
            if (!servers.isEmpty()) {
                Integer status = number(line, "status");
                boolean hasStatus = servers.getFirst().getAttributesList().stream()
                        .anyMatch(kv -> kv.getKey().equals("http.response.status_code"));
                assertThat(hasStatus)
                        .as("a status on the server span of %s", what)
                        .isEqualTo(status != null);
                String end = text(line, "end");
                boolean abnormal = !end.equals("answered") && !end.equals("refused");
                assertThat(servers.getFirst().getAttributesList().stream()
                                .filter(kv -> kv.getKey().equals("error.type"))
                                .map(kv -> kv.getValue().getStringValue())
                                .toList())
                        .as("the server span's error.type of %s", what)
                        .isEqualTo(abnormal ? List.of(end) : List.of());
                boolean error = (status != null && status >= 500) || end.equals("upstream_cut");
                assertThat(servers.getFirst().getStatus().getCode())
                        .as("the server span's status code of %s", what)
                        .isEqualTo(error ? Status.StatusCode.STATUS_CODE_ERROR : Status.StatusCode.STATUS_CODE_UNSET);
                if (status != null) {
                    assertThat(OtlpReceiver.number(servers.getFirst(), "http.response.status_code"))
                            .as("the server span's status of %s", what)
                            .isEqualTo(status.longValue());
                }
            }
            if (trial.fate() == Fate.BUDGET) {
                holders++;
            }
        }
        long others = spans.size()
                - trials.stream()
                        .mapToLong(t ->
                                byTrace.getOrDefault(t.traceId(), List.of()).size())
                        .sum();
        assertThat(others).as("spans of no trial: the holders' server spans").isEqualTo(holders);
    }

    private static List<Span> kind(List<Span> spans, Span.SpanKind kind) {
        return spans.stream().filter(s -> s.getKind() == kind).toList();
    }
}

package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.endpoint.ErrorShape;
import grid.gateway.app.http.ClientAnswers.Answer;
import grid.gateway.app.http.ClientRequests.Close;
import grid.gateway.app.http.ClientRequests.Request;
import grid.gateway.app.http.ClientRequests.Trial;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Test fixture: judges one connection of {@link ClientRequestsPropertyTest}: its answers in order against its
 * requests' expectations, then what the engine received of them.
 */
final class ClientRequestsJudge {
    private static final String TEXT = "\"(?:[^\"\\\\]|\\\\.)*\"";
    private static final String ID = "(,\"request_id\":" + TEXT + ")?";
    private static final Pattern OPENAI = Pattern.compile("\\{\"error\":\\{\"message\":" + TEXT
            + ",\"type\":\"[a-z_]+\",\"param\":null,\"code\":\"[a-z_]+\"" + ID + "}}");
    private static final Pattern ANTHROPIC = Pattern.compile(
            "\\{\"type\":\"error\",\"error\":\\{\"type\":\"[a-z_]+\",\"message\":" + TEXT + "}" + ID + "}");
    private static final Pattern REQUEST_ID = Pattern.compile("(?im)^X-Request-Id: *([^\\s]+)");
    private static final Pattern NONCE = Pattern.compile("(?im)^" + ClientRequests.TRIAL_HEADER + ": *([A-Za-z0-9]+)");

    /** Sends a request before its answer is read (one at a time). */
    @FunctionalInterface
    interface Sender {
        void send(Request request);
    }

    private final Trial trial;
    private final ClientAnswers answers;
    private final Consumer<String> count;
    /** Requests whose engine answer the client got. */
    private final Set<String> relayed = new HashSet<>();
    /** Requests that must never reach the engine. */
    private final Set<String> kept = new HashSet<>();

    private final List<Integer> statuses = new ArrayList<>();
    private int sent;
    private final Map<String, Integer> identified = new HashMap<>();

    ClientRequestsJudge(Trial trial, ClientAnswers answers, Consumer<String> count) {
        this.trial = trial;
        this.answers = answers;
        this.count = count;
    }

    int answers() {
        return statuses.size();
    }

    /** The status of each answer, by its X-Request-Id. */
    Map<String, Integer> identified() {
        return identified;
    }

    List<Integer> statuses() {
        return statuses;
    }

    static String nonceOf(String head) {
        Matcher m = NONCE.matcher(head);
        return m.find() ? m.group(1) : "";
    }

    /** Reads every request's answer in order ({@code sender}: sending each first). */
    void readAll(@Nullable Sender sender) throws IOException {
        List<Request> requests = trial.requests();
        for (int i = 0; i < requests.size(); i++) {
            Request request = requests.get(i);
            sendUpTo(sender, i);
            Answer answer = answers.next();
            assertThat(answer)
                    .as("an answer to %s (the connection ended without one)", request)
                    .isNotNull();
            if (!judged(request, answer)) {
                continue;
            }
            Close close = request.expect().close();
            if (close == Close.MUST) {
                assertThat(answers.endsNow())
                        .as("connection closed after refusing %s", request)
                        .isTrue();
            } else if (close == Close.MAY && i + 1 < requests.size()) {
                sendUpTo(sender, i + 1);
                Answer next = answers.next();
                if (next != null) {
                    answers.pushBack(next);
                    continue;
                }
            } else if (close == Close.NEVER || i + 1 == requests.size()) {
                continue;
            }
            keepFrom(i + 1);
            return;
        }
    }

    /** Reads the answers of a trial cut short by the client's close: in order, none to what was not sent whole. */
    void readCut() throws IOException {
        int cut = cutRequest();
        keepFrom(cut);
        List<Request> requests = trial.requests();
        for (int i = 0; i <= cut && i < requests.size(); i++) {
            Answer answer = answers.next();
            if (answer == null) {
                return;
            }
            Request request = requests.get(i);
            if (i == cut) {
                // Sent in part: refused in its API's shape, never forwarded.
                assertThat(answer.status())
                        .as("answer to %s cut at %s: %s", request, trial.cutAt(), answer)
                        .isBetween(400, 499);
                shaped(request, answer);
                statuses.add(answer.status());
                identify(answer);
                count.accept("cut, refused " + answer.status());
                return;
            }
            if (judged(request, answer) && request.expect().close() != Close.NEVER) {
                if (request.expect().close() == Close.MUST) {
                    assertThat(answers.endsNow())
                            .as("closed after refusing %s", request)
                            .isTrue();
                }
                return;
            }
        }
    }

    /** A trial ended by the client's reset: nothing from the request the cut fell in on reaches the engine. */
    void reset() {
        keepFrom(cutRequest());
    }

    /** Checks what the engine received of this trial's requests. */
    void engineGot(List<ScriptedUpstream.Request> got) {
        Map<String, Request> byNonce = new HashMap<>();
        trial.requests().forEach(r -> byNonce.put(r.nonce(), r));
        Set<String> seen = new HashSet<>();
        for (ScriptedUpstream.Request received : got) {
            String nonce = nonceOf(received.head());
            Request request = byNonce.get(nonce);
            assertThat(seen.add(nonce)).as("%s received once: %s", nonce, got).isTrue();
            assertThat(request)
                    .as("a request the client sent: %s", received.head())
                    .isNotNull();
            assertThat(kept).as("the engine got %s", received.head()).doesNotContain(nonce);
            assertThat(request.expect().forwardable())
                    .as("forwarded, but not forwardable: %s, engine got %s", request, received.head())
                    .isTrue();
            exact(request, received);
        }
        if (!trial.delivery().name().startsWith("CUT")) {
            assertThat(seen).as("forwarded: those answered by the engine").isEqualTo(relayed);
        }
    }

    private void exact(Request request, ScriptedUpstream.Request received) {
        String head = received.head();
        String line = head.substring(0, head.indexOf("\r\n"));
        assertThat(line)
                .as("request line forwarded for %s", request)
                .isEqualTo(
                        request.route().method() + " " + request.route().engineTarget(request.nonce()) + " HTTP/1.1");
        assertThat(new String(received.body(), java.nio.charset.StandardCharsets.ISO_8859_1))
                .as("body forwarded for %s", request)
                .isEqualTo(request.engineBody());
        String lower = head.toLowerCase(Locale.ROOT);
        assertThat(lower).as("forwarded head of %s", request).doesNotContain("\r\ntransfer-encoding:");
        assertThat(lower.split("\r\ncontent-length:", -1).length)
                .as("Content-Length fields forwarded: %s", head)
                .isLessThanOrEqualTo(2);
    }

    private void identify(Answer answer) {
        Matcher id = REQUEST_ID.matcher(answer.head());
        assertThat(id.find()).as("X-Request-Id on %s", answer).isTrue();
        identified.put(id.group(1), answer.status());
        assertThat(answer.status() == 200 || answer.body().contains("\"request_id\":\"" + id.group(1) + "\""))
                .as("the request id in %s", answer)
                .isTrue();
    }

    /** Judges {@code answer} to {@code request}; true when it is a refusal. */
    private boolean judged(Request request, Answer answer) {
        statuses.add(answer.status());
        identify(answer);
        if (answer.status() == 200 && answer.body().contains("\"echo\":\"" + request.nonce() + "\"")) {
            assertThat(request.expect().forwardable())
                    .as("forwarded and answered: %s", request)
                    .isTrue();
            assertThat(answer.complete()).as("whole answer to %s", request).isTrue();
            relayed.add(request.nonce());
            count.accept("forwarded");
            count.accept("forwarded " + request.oddity());
            return false;
        }
        assertThat(request.expect().refusable())
                .as("%s answered %s", request, answer)
                .isTrue();
        assertThat(request.expect().statuses())
                .as("%s answered %s", request, answer)
                .contains(answer.status());
        shaped(request, answer);
        kept.add(request.nonce());
        count.accept("refused");
        count.accept("refused " + request.oddity() + " " + answer.status());
        return true;
    }

    /** The answer is a whole error in the request's API's shape (either shape where the target is not a route's). */
    private static void shaped(Request request, Answer answer) {
        assertThat(answer.complete()).as("whole answer %s", answer).isTrue();
        assertThat(answer.head().toLowerCase(Locale.ROOT)).contains("\r\ncontent-type: application/json");
        String firstLine =
                request.wire().substring(0, Math.max(0, request.wire().indexOf('\r')));
        // A request line over its 4096 bytes is not read: its target is unknown, its refusal in OpenAI's shape.
        boolean routed = request.route() != null
                && firstLine.length() < 4096
                && (firstLine.contains(" " + request.route().target(request.nonce()) + " ")
                        || firstLine.contains(" " + request.route().target(request.nonce()) + "?"));
        boolean openAi = OPENAI.matcher(answer.body()).matches();
        boolean anthropic = ANTHROPIC.matcher(answer.body()).matches();
        if (routed) {
            assertThat(request.errors() == ErrorShape.ANTHROPIC ? anthropic : openAi)
                    .as("%s answered in %s's shape: %s", request, request.errors(), answer)
                    .isTrue();
        } else {
            assertThat(openAi || anthropic)
                    .as("an API's error shape: %s", answer)
                    .isTrue();
        }
    }

    private void sendUpTo(@Nullable Sender sender, int index) {
        while (sender != null && sent <= index && sent < trial.requests().size()) {
            sender.send(trial.requests().get(sent++));
        }
    }

    private void keepFrom(int index) {
        List<Request> requests = trial.requests();
        for (int i = index; i < requests.size(); i++) {
            kept.add(requests.get(i).nonce());
        }
    }

    /** The index of the request the cut falls in. */
    private int cutRequest() {
        int at = 0;
        List<Request> requests = trial.requests();
        for (int i = 0; i < requests.size(); i++) {
            at += requests.get(i).wire().length();
            if (trial.cutAt() < at) {
                return i;
            }
        }
        return requests.size();
    }
}

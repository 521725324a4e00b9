package grid.gateway.conformance.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.enginesim.EngineSimulator;
import grid.gateway.enginesim.Fault;
import grid.gateway.enginesim.RecordedRequest;
import grid.gateway.routing.select.BinomialBounds;
import grid.gateway.routing.tag.ClusterDigest;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs a {@link Scenario}'s steps against a {@link GatewayUnderTest}, failing with an AssertJ error that names the
 * step. Not thread-safe: one runner per scenario.
 */
final class ScenarioRunner {
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([^}]*)}");

    private final Scenario scenario;
    private final GatewayUnderTest gateway;
    private final HttpClient client =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final Map<String, String> variables = new HashMap<>();
    private final Map<String, Integer> counts = new HashMap<>();
    private final String metricsAtStart;
    private HttpResponse<String> last;
    /** Opened by a release step; the engines' held first bytes wait on it. */
    private CountDownLatch gate = new CountDownLatch(1);
    /** Answers of async sends, awaited by a release step. */
    private final List<CompletableFuture<HttpResponse<String>>> pending = new ArrayList<>();

    private Optional<String> servedBy = Optional.empty();
    private Optional<RecordedRequest> upstream = Optional.empty();

    private ScenarioRunner(Scenario scenario, GatewayUnderTest gateway) {
        this.scenario = scenario;
        this.gateway = gateway;
        this.metricsAtStart = metrics();
    }

    /** Starts the grid of {@code scenario} in {@code mode} (files in {@code dir}), runs every step and stops the grid. */
    static void run(Scenario scenario, GatewayUnderTest.Mode mode, Path dir) throws InterruptedException {
        try (GatewayUnderTest gateway = mode.start(scenario, dir)) {
            ScenarioRunner runner = new ScenarioRunner(scenario, gateway);
            try {
                runner.steps();
            } finally {
                // never leave a held answer behind
                runner.gate.countDown();
            }
        }
    }

    private void steps() throws InterruptedException {
        List<Step> steps = scenario.steps();
        for (int i = 0; i < steps.size(); i++) {
            try {
                step(steps.get(i));
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError(
                        scenario.file() + " steps[" + i + "] " + steps.get(i) + ": " + e.getMessage(), e);
            }
        }
    }

    private void step(Step step) throws InterruptedException {
        switch (step) {
            case Step.Send send -> send(send);
            case Step.SetQueue set -> {
                gateway.engine(set.cluster()).setQueueDepth(set.depth());
                gateway.queueDepthSet(set.cluster(), set.depth());
            }
            case Step.Advance advance -> gateway.advance(Duration.ofNanos((long) (advance.seconds() * 1e9)));
            case Step.Reload reload
            when reload.refused() != null ->
                gateway.refusedReload(reload.grid(), reload.gateway(), reload.plugins(), reload.refused());
            case Step.Reload reload -> gateway.reload(reload.grid(), reload.gateway(), reload.plugins());
            case Step.FailNext fail ->
                gateway.engine(fail.cluster()).failNext(fail.times(), Fault.status(fail.status()));
            case Step.Expect expect -> check(expect.expectation());
            case Step.HoldFirstByte hold ->
                gateway.engine(hold.cluster()).failNext(hold.times(), Fault.holdFirstByte(gate));
            case Step.Release release -> release(release.status());
            case Step.Repeat repeat -> {
                for (int i = 0; i < repeat.times(); i++) {
                    HttpResponse<String> answer = exchange(repeat.send());
                    if (answer.statusCode() != repeat.status()) {
                        throw new AssertionError(
                                "repetition " + i + " answered " + answer.statusCode() + ": " + answer.body());
                    }
                }
                gateway.engines.values().forEach(ScenarioRunner::drain);
            }
        }
    }

    private void send(Step.Send send) throws InterruptedException {
        Map<String, Integer> before = new HashMap<>();
        gateway.engines.forEach((name, engine) -> before.put(name, engine.requestCount()));
        if (send.async()) {
            pending.add(client.sendAsync(request(send), HttpResponse.BodyHandlers.ofString()));
            // on as soon as an engine received it
            long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (gateway.engines.entrySet().stream()
                    .noneMatch(e -> e.getValue().requestCount() > before.getOrDefault(e.getKey(), 0))) {
                if (pending.getLast().isDone() || System.nanoTime() - end > 0) {
                    throw new AssertionError("the async request reached no engine: "
                            + (pending.getLast().isDone()
                                    ? pending.getLast().join().body()
                                    : "within 10 s"));
                }
                Thread.sleep(5);
            }
            last = null;
        } else {
            last = exchange(send);
        }
        List<String> grew = new ArrayList<>();
        gateway.engines.forEach((name, engine) -> {
            if (engine.requestCount() > before.getOrDefault(name, 0)) {
                grew.add(name);
            }
        });
        servedBy = grew.size() == 1 ? Optional.of(grew.getFirst()) : Optional.empty();
        upstream = Optional.empty();
        for (Map.Entry<String, EngineSimulator> engine : gateway.engines.entrySet()) {
            Optional<RecordedRequest> newest = drain(engine.getValue());
            if (servedBy.isPresent() && servedBy.get().equals(engine.getKey())) {
                upstream = newest;
            }
        }
        if (grew.size() > 1) {
            servedBy = Optional.of(String.join(",", grew));
        }
        for (Map.Entry<String, String> save : send.save().entrySet()) {
            if (save.getValue().equals("$served_by")) {
                variables.put(save.getKey(), servedBy.orElse("none"));
                continue;
            }
            variables.put(
                    save.getKey(),
                    field(save.getValue())
                            .orElseThrow(() ->
                                    new AssertionError("no field " + save.getValue() + " to save in " + last.body())));
        }
    }

    private void release(int status) {
        gate.countDown();
        gate = new CountDownLatch(1);
        try {
            for (int i = 0; i < pending.size(); i++) {
                HttpResponse<String> answer = pending.get(i).get(30, TimeUnit.SECONDS);
                if (answer.statusCode() != status) {
                    throw new AssertionError(
                            "async send " + i + " answered " + answer.statusCode() + ": " + answer.body());
                }
                last = answer;
            }
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("an async send did not complete: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } finally {
            pending.clear();
        }
        servedBy = Optional.empty();
        upstream = Optional.empty();
        gateway.engines.values().forEach(ScenarioRunner::drain);
    }

    private static Optional<RecordedRequest> drain(EngineSimulator engine) {
        Optional<RecordedRequest> newest = Optional.empty();
        try {
            for (Optional<RecordedRequest> r = engine.takeRequest(Duration.ZERO);
                    r.isPresent();
                    r = engine.takeRequest(Duration.ZERO)) {
                newest = r;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return newest;
    }

    private HttpResponse<String> exchange(Step.Send send) {
        return http(request(send));
    }

    private HttpRequest request(Step.Send send) {
        HttpRequest.Builder request =
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + expand(send.path())));
        HttpRequest.BodyPublisher body = send.body() == null
                ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(expand(send.body()));
        request.method(send.method(), body);
        if (send.body() != null) {
            request.header("Content-Type", "application/json");
        }
        send.headers().forEach((name, value) -> request.header(name, expand(value)));
        return request.build();
    }

    private HttpResponse<String> http(HttpRequest request) {
        return GatewayHarness.send(client, request);
    }

    /**
     * Expands {@code ${var}} (a saved variable), {@code ${digest:cluster}} (the cluster's 8-hex digest),
     * {@code ${engine_id:var}} (a saved tagged id with its tag stripped) and {@code ${repeat:n:text}}.
     */
    String expand(String text) {
        Matcher m = VARIABLE.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String expr = m.group(1);
            String value;
            if (expr.startsWith("digest:")) {
                value = ClusterDigest.of(expr.substring("digest:".length()));
            } else if (expr.startsWith("engine_id:")) {
                value = engineId(variable(expr.substring("engine_id:".length())));
            } else if (expr.startsWith("repeat:")) {
                String[] parts = expr.split(":", 3);
                value = parts[2].repeat(Integer.parseInt(parts[1]));
            } else {
                value = variable(expr);
            }
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        return out.toString();
    }

    private String variable(String name) {
        String value = variables.get(name);
        if (value == null) {
            throw new AssertionError("no variable ${" + name + "} saved yet");
        }
        return value;
    }

    /** {@code resp_<site>.<cluster>.<mac>.<id>} → {@code resp_<id>}. */
    private static String engineId(String tagged) {
        int underscore = tagged.indexOf('_');
        return tagged.substring(0, underscore + 1) + tagged.substring(tagged.lastIndexOf('.') + 1);
    }

    private void check(Expectation e) {
        if (e.status() != null
                || !e.headers().isEmpty()
                || !e.json().isEmpty()
                || !e.jsonMatches().isEmpty()
                || e.bodyContains() != null
                || e.bodyMatches() != null
                || e.bodyLacksMatch() != null) {
            assertThat(last).as("an answer to check (send first)").isNotNull();
        }
        if (e.status() != null) {
            assertThat(last.statusCode()).as("status; body " + last.body()).isEqualTo(e.status());
        }
        if (e.servedBy() != null) {
            assertThat(servedBy.orElse("none")).as("the cluster that served it").isEqualTo(expand(e.servedBy()));
        }
        e.headers()
                .forEach((name, value) -> assertThat(last.headers().firstValue(name))
                        .as("header " + name)
                        .contains(expand(value)));
        e.json()
                .forEach((path, value) -> assertThat(field(path))
                        .as("field " + path + " of " + last.body())
                        .contains(expand(value)));
        e.jsonMatches()
                .forEach((path, regex) -> assertThat(field(path))
                        .as("field " + path + " of " + last.body())
                        .hasValueSatisfying(v -> assertThat(v).matches(expand(regex))));
        if (e.bodyContains() != null) {
            assertThat(last.body()).contains(expand(e.bodyContains()));
        }
        if (e.bodyMatches() != null) {
            assertThat(last.body()).containsPattern(expand(e.bodyMatches()));
        }
        if (e.bodyLacksMatch() != null) {
            assertThat(last.body()).doesNotContainPattern(expand(e.bodyLacksMatch()));
        }
        if (e.upstreamPath() != null) {
            assertThat(upstream.map(RecordedRequest::target))
                    .as("what the serving engine received")
                    .contains(expand(e.upstreamPath()));
        }
        if (e.upstreamBodyContains() != null) {
            assertThat(upstream.map(RecordedRequest::body).orElse("")).contains(expand(e.upstreamBodyContains()));
        }
        if (e.upstreamBodyLacks() != null) {
            assertThat(upstream).as("a request reached an engine").isPresent();
            assertThat(upstream.get().body()).doesNotContain(expand(e.upstreamBodyLacks()));
        }
        if (!e.metricDeltas().isEmpty()) {
            String now = metrics();
            for (Expectation.MetricDelta delta : e.metricDeltas()) {
                long change = Math.round(sum(now, delta) - sum(metricsAtStart, delta));
                String what = "change of " + delta.name() + delta.labels();
                String lines = what + " since the start; now "
                        + now.lines().filter(l -> l.startsWith(delta.name())).toList();
                if (delta.delta() != null) {
                    assertThat(change).as(lines).isEqualTo(delta.delta());
                }
                if (delta.min() != null) {
                    assertThat(change).as(lines).isGreaterThanOrEqualTo(delta.min());
                }
                if (delta.binomialN() != null) {
                    long[] bounds = BinomialBounds.central(delta.binomialN(), delta.binomialP(), delta.confidence());
                    System.out.printf(
                            "%s: %s = %d of %d (bounds [%d, %d])%n",
                            scenario.file().getFileName(), what, change, delta.binomialN(), bounds[0], bounds[1]);
                    assertThat(change).as(lines).isBetween(bounds[0], bounds[1]);
                }
            }
        }
    }

    private String metrics() {
        return http(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.adminPort() + "/metrics"))
                        .build())
                .body();
    }

    /** The sum of every series of {@code delta.name()} carrying all of {@code delta.labels()}. */
    static double sum(String metrics, Expectation.MetricDelta delta) {
        double total = 0;
        for (String line : metrics.split("\n")) {
            if (!line.startsWith(delta.name() + "{") && !line.startsWith(delta.name() + " ")) {
                continue;
            }
            boolean all = delta.labels().entrySet().stream()
                    .allMatch(l -> line.contains(l.getKey() + "=\"" + l.getValue() + "\""));
            if (all) {
                total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return total;
    }

    /** The text of a JSON field of the last answer, by dotted path (array indices as numbers). */
    private Optional<String> field(String path) {
        JsonValue value;
        try {
            value = Json.createReader(new StringReader(last.body())).readValue();
        } catch (RuntimeException notJson) {
            return Optional.empty();
        }
        for (String part : path.split("\\.")) {
            if (value instanceof JsonObject o && o.containsKey(part)) {
                value = o.get(part);
            } else if (value instanceof JsonArray a && part.matches("\\d+") && Integer.parseInt(part) < a.size()) {
                value = a.get(Integer.parseInt(part));
            } else {
                return Optional.empty();
            }
        }
        return Optional.of(value instanceof JsonString s ? s.getString() : value.toString());
    }
}

package grid.gateway.conformance.scenario;

import jakarta.json.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/** Reads a {@link Scenario} from YAML, strictly: an unknown or misplaced key fails the load, naming file and key. */
public final class ScenarioLoader {
    /**
     * The default seed of the gateway's random source. SplittableRandom(1) draws no value under 0.02 in its first
     * 60 draws, so a short scenario is never decided by the 2% exploration; a scenario may set {@code seed}.
     */
    static final long DEFAULT_SEED = 1;

    private ScenarioLoader() {}

    /** A scenario file that cannot be used. */
    public static final class ScenarioException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ScenarioException(String message) {
            super(message);
        }
    }

    /** Loads {@code file}. */
    public static Scenario load(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Object root = new Yaml(new SafeConstructor(new LoaderOptions())).load(text);
        Node top = Node.of(file, "", root);
        Scenario scenario = new Scenario(
                file,
                top.string("name"),
                top.string("spec"),
                top.string("description"),
                top.optList("requires").stream().map(String::valueOf).toList(),
                top.has("seed") ? top.integer("seed") : DEFAULT_SEED,
                top.optMap("gateway"),
                top.optMap("plugins"),
                grid(top.node("grid")),
                steps(top.list("steps"), top));
        top.done();
        return scenario;
    }

    static List<Scenario.Site> grid(Node grid) {
        List<Scenario.Site> sites = new ArrayList<>();
        for (String site : grid.keys()) {
            Node clusters = grid.node(site);
            List<Scenario.Cluster> list = new ArrayList<>();
            for (String cluster : clusters.keys()) {
                Node c = clusters.node(cluster);
                list.add(new Scenario.Cluster(
                        cluster,
                        c.has("models")
                                ? c.list("models").stream().map(String::valueOf).toList()
                                : List.of("demo-model"),
                        c.has("draining") && c.bool("draining"),
                        c.has("max_queue_depth") ? (int) c.integer("max_queue_depth") : null));
                c.done();
            }
            clusters.done();
            sites.add(new Scenario.Site(site, list));
        }
        grid.done();
        return sites;
    }

    private static List<Step> steps(List<Object> raw, Node top) {
        List<Step> steps = new ArrayList<>();
        for (int i = 0; i < raw.size(); i++) {
            Node step = Node.of(top.file, "steps[" + i + "]", raw.get(i));
            List<String> kinds = step.keys();
            if (kinds.size() != 1) {
                throw top.fail("steps[" + i + "] must have exactly one kind, has " + kinds);
            }
            String kind = kinds.getFirst();
            steps.add(
                    switch (kind) {
                        case "send" -> send(step.node(kind));
                        case "set_queue" -> {
                            Node n = step.node(kind);
                            Step s = new Step.SetQueue(n.string("cluster"), (int) n.integer("depth"));
                            n.done();
                            yield s;
                        }
                        case "advance" -> {
                            Node n = step.node(kind);
                            Step s = new Step.Advance(n.number("seconds"));
                            n.done();
                            yield s;
                        }
                        case "reload" -> {
                            Node n = step.node(kind);
                            Step s = new Step.Reload(
                                    grid(n.node("grid")),
                                    n.optMap("gateway"),
                                    n.optMap("plugins"),
                                    n.has("refused") ? n.string("refused") : null);
                            n.done();
                            yield s;
                        }
                        case "fail_next" -> {
                            Node n = step.node(kind);
                            Step s = new Step.FailNext(
                                    n.string("cluster"),
                                    (int) n.integer("status"),
                                    n.has("times") ? (int) n.integer("times") : 1);
                            n.done();
                            yield s;
                        }
                        case "expect" -> new Step.Expect(expectation(step.node(kind)));
                        case "hold_first_byte" -> {
                            Node n = step.node(kind);
                            Step s = new Step.HoldFirstByte(
                                    n.string("cluster"), n.has("times") ? (int) n.integer("times") : 1);
                            n.done();
                            yield s;
                        }
                        case "release" -> {
                            Node n = step.node(kind);
                            Step s = new Step.Release(n.has("status") ? (int) n.integer("status") : 200);
                            n.done();
                            yield s;
                        }
                        case "repeat" -> {
                            Node n = step.node(kind);
                            Step s = new Step.Repeat(
                                    (int) n.integer("times"),
                                    send(n.node("send")),
                                    n.has("status") ? (int) n.integer("status") : 200);
                            n.done();
                            yield s;
                        }
                        default -> throw step.unknown(kind);
                    });
            step.done();
        }
        return steps;
    }

    private static Step.Send send(Node n) {
        String body = null;
        if (n.has("json") && n.has("body")) {
            throw n.fail(n.path + " has both json and body");
        }
        if (n.has("json")) {
            body = Json.createObjectBuilder(n.optMap("json")).build().toString();
        } else if (n.has("body")) {
            body = n.string("body");
        }
        Step.Send send = new Step.Send(
                n.has("method") ? n.string("method") : (body == null ? "GET" : "POST"),
                n.string("path"),
                body,
                strings(n, "headers"),
                strings(n, "save"),
                n.has("async") && n.bool("async"));
        if (send.async() && !send.save().isEmpty()) {
            throw n.fail(n.path + " saves nothing from an async answer");
        }
        n.done();
        return send;
    }

    private static Expectation expectation(Node n) {
        List<Expectation.MetricDelta> deltas = new ArrayList<>();
        if (n.has("metric_delta")) {
            List<Object> raw = n.list("metric_delta");
            for (int i = 0; i < raw.size(); i++) {
                Node m = Node.of(n.file, n.path + ".metric_delta[" + i + "]", raw.get(i));
                Node binomial = m.has("binomial") ? m.node("binomial") : null;
                deltas.add(new Expectation.MetricDelta(
                        m.string("name"),
                        strings(m, "labels"),
                        m.has("delta") ? m.integer("delta") : null,
                        m.has("min") ? m.integer("min") : null,
                        binomial == null ? null : (int) binomial.integer("n"),
                        binomial == null ? null : binomial.number("p"),
                        binomial == null ? null : binomial.number("confidence")));
                if (binomial != null) {
                    binomial.done();
                }
                m.done();
            }
        }
        Expectation e = new Expectation(
                n.has("status") ? (int) n.integer("status") : null,
                n.has("served_by") ? n.string("served_by") : null,
                strings(n, "headers"),
                strings(n, "json"),
                strings(n, "json_matches"),
                n.has("body_contains") ? n.string("body_contains") : null,
                n.has("body_matches") ? n.string("body_matches") : null,
                n.has("body_lacks_match") ? n.string("body_lacks_match") : null,
                n.has("upstream_path") ? n.string("upstream_path") : null,
                n.has("upstream_body_contains") ? n.string("upstream_body_contains") : null,
                n.has("upstream_body_lacks") ? n.string("upstream_body_lacks") : null,
                deltas);
        n.done();
        return e;
    }

    private static Map<String, String> strings(Node n, String key) {
        Map<String, String> out = new LinkedHashMap<>();
        n.optMap(key).forEach((k, v) -> out.put(k, String.valueOf(v)));
        return out;
    }

    /** A YAML mapping that remembers which keys were read, so that {@link #done()} can refuse the rest. */
    static final class Node {
        final Path file;
        final String path;
        private final Map<String, Object> map;
        private final Set<String> read = new HashSet<>();

        private Node(Path file, String path, Map<String, Object> map) {
            this.file = file;
            this.path = path;
            this.map = map;
        }

        @SuppressWarnings("unchecked")
        static Node of(Path file, String path, Object value) {
            if (!(value instanceof Map<?, ?> m)) {
                throw new ScenarioException(file + ": " + (path.isEmpty() ? "the file" : path) + " must be a mapping");
            }
            Map<String, Object> copy = new LinkedHashMap<>();
            ((Map<Object, Object>) m).forEach((k, v) -> copy.put(String.valueOf(k), v));
            return new Node(file, path, copy);
        }

        private String at(String key) {
            return path.isEmpty() ? key : path + "." + key;
        }

        ScenarioException fail(String message) {
            return new ScenarioException(file + ": " + message);
        }

        ScenarioException unknown(String key) {
            return fail("unknown key '" + at(key) + "'");
        }

        List<String> keys() {
            read.addAll(map.keySet());
            return List.copyOf(map.keySet());
        }

        boolean has(String key) {
            return map.containsKey(key);
        }

        private Object get(String key) {
            read.add(key);
            Object value = map.get(key);
            if (value == null) {
                throw fail("missing key '" + at(key) + "'");
            }
            return value;
        }

        String string(String key) {
            return String.valueOf(get(key));
        }

        long integer(String key) {
            if (get(key) instanceof Number n) {
                return n.longValue();
            }
            throw fail("'" + at(key) + "' must be an integer");
        }

        double number(String key) {
            if (get(key) instanceof Number n) {
                return n.doubleValue();
            }
            throw fail("'" + at(key) + "' must be a number");
        }

        boolean bool(String key) {
            if (get(key) instanceof Boolean b) {
                return b;
            }
            throw fail("'" + at(key) + "' must be true or false");
        }

        Node node(String key) {
            return of(file, at(key), get(key));
        }

        @SuppressWarnings("unchecked")
        List<Object> list(String key) {
            if (get(key) instanceof List<?> l) {
                return (List<Object>) l;
            }
            throw fail("'" + at(key) + "' must be a list");
        }

        List<Object> optList(String key) {
            return has(key) ? list(key) : List.of();
        }

        @SuppressWarnings("unchecked")
        Map<String, Object> optMap(String key) {
            if (!has(key)) {
                return Map.of();
            }
            if (get(key) instanceof Map<?, ?> m) {
                Map<String, Object> copy = new LinkedHashMap<>();
                ((Map<Object, Object>) m).forEach((k, v) -> copy.put(String.valueOf(k), v));
                return copy;
            }
            throw fail("'" + at(key) + "' must be a mapping");
        }

        /** Refuses any key that was not read. */
        void done() {
            for (String key : map.keySet()) {
                if (!read.contains(key)) {
                    throw unknown(key);
                }
            }
        }
    }
}

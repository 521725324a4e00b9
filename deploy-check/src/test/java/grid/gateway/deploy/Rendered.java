package grid.gateway.deploy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * The manifests of one {@code helm template} run, as text and as parsed documents.
 *
 * @param name the values file's name without {@code -values.yaml}
 * @param text the manifests as Helm printed them
 * @param documents every non-empty YAML document, in order
 */
record Rendered(String name, String text, List<Map<String, Object>> documents) {
    Rendered {
        documents = List.copyOf(documents);
    }

    /** Parses Helm's output. */
    static Rendered parse(String name, String text) {
        List<Map<String, Object>> documents = new ArrayList<>();
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        for (Object document : new Yaml(options).loadAll(text)) {
            if (document != null) {
                documents.add(Values.map(document));
            }
        }
        return new Rendered(name, text, documents);
    }

    /** The documents of {@code kind}. */
    List<Map<String, Object>> ofKind(String kind) {
        return documents.stream().filter(d -> kind.equals(d.get("kind"))).toList();
    }

    /** The one document of {@code kind}; fails when there is none or more than one. */
    Map<String, Object> only(String kind) {
        List<Map<String, Object>> found = ofKind(kind);
        if (found.size() != 1) {
            throw new AssertionError(name + ": expected one " + kind + ", found " + found.size());
        }
        return found.get(0);
    }

    /** Every document's kind, in order. */
    List<String> kinds() {
        return documents.stream().map(d -> String.valueOf(d.get("kind"))).toList();
    }

    /** The ConfigMap holding the gateway config (the chart may also render the dashboard's). */
    Map<String, Object> configMap() {
        List<Map<String, Object>> found = ofKind("ConfigMap").stream()
                .filter(c -> at(c, "data", "config.yaml") != null)
                .toList();
        if (found.size() != 1) {
            throw new AssertionError(name + ": expected one ConfigMap with config.yaml, found " + found.size());
        }
        return found.get(0);
    }

    /** The gateway config file in the ConfigMap ({@code data."config.yaml"}). */
    String configYaml() {
        return (String) at(configMap(), "data", "config.yaml");
    }

    /** The gateway config, parsed. */
    Map<String, Object> config() {
        return Values.map(new Yaml().load(configYaml()));
    }

    /** The Deployment's one container. */
    Map<String, Object> container() {
        List<?> containers = (List<?>) at(only("Deployment"), "spec", "template", "spec", "containers");
        if (containers.size() != 1) {
            throw new AssertionError(name + ": expected one container, found " + containers.size());
        }
        return Values.map(containers.get(0));
    }

    /**
     * The value at {@code path} under {@code root}: a string steps into a map, an integer into a list; a missing step
     * gives null.
     */
    static Object at(Object root, Object... path) {
        Object here = root;
        for (Object step : path) {
            if (here instanceof Map<?, ?> map && step instanceof String key) {
                here = map.get(key);
            } else if (here instanceof List<?> list && step instanceof Integer index && index < list.size()) {
                here = list.get(index);
            } else {
                return null;
            }
        }
        return here;
    }

    /** The element of {@code list} (a list of maps) whose {@code name} is {@code name}. */
    static Map<String, Object> named(Object list, String name) {
        for (Object item : (List<?>) Objects.requireNonNull(list, "list")) {
            if (item instanceof Map<?, ?> map && name.equals(map.get("name"))) {
                return Values.map(map);
            }
        }
        throw new AssertionError("no element named " + name + " in " + list);
    }
}

package grid.gateway.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/** Helm values files: read, merged as Helm merges {@code -f} files, and written. Stateless. */
final class Values {
    private Values() {}

    /** The map in a values file; an empty file is an empty map. */
    static Map<String, Object> read(Path file) {
        try {
            Object document = new Yaml().load(Files.readString(file));
            return document == null ? new LinkedHashMap<>() : map(document);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code base} overridden by {@code override}: maps merge key by key, anything else replaces, null deletes. */
    static Map<String, Object> merge(Map<String, Object> base, Map<String, Object> override) {
        Map<String, Object> merged = new LinkedHashMap<>(base);
        override.forEach((key, value) -> {
            Object old = merged.get(key);
            if (value == null) {
                merged.remove(key);
            } else if (old instanceof Map<?, ?> oldMap && value instanceof Map<?, ?> newMap) {
                merged.put(key, merge(map(oldMap), map(newMap)));
            } else {
                merged.put(key, value);
            }
        });
        return merged;
    }

    /** Writes {@code values} as block YAML. */
    static void write(Map<String, Object> values, Path file) {
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        try {
            Files.writeString(file, new Yaml(options).dump(values));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @SuppressWarnings("unchecked") // YAML mappings load as Map<String, Object> with string keys
    static Map<String, Object> map(Object yaml) {
        return (Map<String, Object>) yaml;
    }
}

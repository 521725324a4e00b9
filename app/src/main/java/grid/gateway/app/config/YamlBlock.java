package grid.gateway.app.config;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One YAML mapping of the serving config at its key path, read strictly: every read either returns a usable value
 * or records a problem naming {@code path.key} and returns the default, so one load reports every problem.
 *
 * <p>A key given with no value ({@code key:} or {@code key: null}) is a problem, except for a block, where it reads
 * as an empty block: a block whose every line is commented out keeps its defaults. Numbers must be YAML numbers
 * (a quoted {@code "8080"} is refused), booleans must be {@code true} or {@code false}.
 *
 * <p>Not thread-safe; one per load.
 */
final class YamlBlock {
    /** The value of a setting measured instead of configured. */
    static final String AUTO = "auto";

    private final String path;
    private final Map<?, ?> entries;
    private final Problems problems;
    // True when the YAML held something other than a mapping here: that is reported once, and the keys read
    // from the empty stand-in are not reported missing as well.
    private final boolean invalid;

    private YamlBlock(String path, Map<?, ?> entries, Problems problems, boolean invalid) {
        this.path = path;
        this.entries = entries;
        this.problems = problems;
        this.invalid = invalid;
    }

    /** The document's top-level mapping. */
    static YamlBlock root(Map<?, ?> entries, Problems problems) {
        return new YamlBlock("", entries, problems, false);
    }

    /** The block at {@code path} holding {@code value}: a mapping, else a problem and an empty block. */
    static YamlBlock at(String path, @Nullable Object value, Problems problems) {
        if (value instanceof Map<?, ?> map) {
            return new YamlBlock(path, map, problems, false);
        }
        problems.add(path, value, "a mapping");
        return new YamlBlock(path, Map.of(), problems, true);
    }

    /** The problems this load records. */
    Problems problems() {
        return problems;
    }

    /** The key path of {@code key} in this block. */
    String path(String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    /** Whether {@code key} is written, with or without a value. */
    boolean has(String key) {
        return entries.containsKey(key);
    }

    /**
     * Records every key other than {@code known} as unknown, in document order. A dash-case spelling of a known
     * key is told its snake_case name.
     */
    void only(String... known) {
        Set<String> keys = Set.of(known);
        for (Object key : entries.keySet()) {
            if (key instanceof String text && keys.contains(text)) {
                continue;
            }
            String name = Problems.keyName(key);
            String snake = name.replace('-', '_');
            String expected =
                    keys.contains(snake) ? snake + "; keys are snake_case" : "one of " + String.join(", ", known);
            problems.addLine(path(name) + ": unknown key (expected: " + expected + ")");
        }
    }

    /** The block under {@code key}: empty when absent or written with no value. */
    YamlBlock block(String key) {
        Object value = entries.get(key);
        if (value == null) {
            return new YamlBlock(path(key), Map.of(), problems, false);
        }
        return at(path(key), value, problems);
    }

    /** The list under {@code key}; empty when absent, or when not a list (a problem). */
    Optional<List<?>> list(String key, String expected) {
        if (!has(key)) {
            return Optional.empty();
        }
        if (entries.get(key) instanceof List<?> list) {
            return Optional.of(list);
        }
        problems.add(path(key), entries.get(key), expected);
        return Optional.empty();
    }

    /** The list under {@code key}; a problem when absent (unless this block is itself invalid). */
    Optional<List<?>> requiredList(String key, String expected) {
        if (!has(key) && !invalid) {
            problems.missing(path(key), expected);
        }
        return list(key, expected);
    }

    /** The string under {@code key}; empty when absent, or when not a string (a problem). */
    Optional<String> string(String key, String expected) {
        if (!has(key)) {
            return Optional.empty();
        }
        if (entries.get(key) instanceof String text) {
            return Optional.of(text);
        }
        problems.add(path(key), entries.get(key), expected);
        return Optional.empty();
    }

    /** The string under {@code key}; a problem when absent (unless this block is itself invalid). */
    Optional<String> requiredString(String key, String expected) {
        if (!has(key) && !invalid) {
            problems.missing(path(key), expected);
        }
        return string(key, expected);
    }

    /** The integer under {@code key}, or {@code otherwise} when absent or not in {@code range} (a problem). */
    long integer(String key, long otherwise, LongRange range) {
        OptionalLong value = optionalInteger(key, range);
        return value.isPresent() ? value.getAsLong() : otherwise;
    }

    /** The integer under {@code key}; empty when absent, or when not an integer in {@code range} (a problem). */
    OptionalLong optionalInteger(String key, LongRange range) {
        if (!has(key)) {
            return OptionalLong.empty();
        }
        Object value = entries.get(key);
        BigInteger number;
        if (value instanceof Integer || value instanceof Long) {
            number = BigInteger.valueOf(((Number) value).longValue());
        } else if (value instanceof BigInteger big) {
            number = big;
        } else {
            problems.add(path(key), value, range.typeExpected());
            return OptionalLong.empty();
        }
        String problem = range.problem(number);
        if (!problem.isEmpty()) {
            problems.add(path(key), value, problem);
            return OptionalLong.empty();
        }
        return OptionalLong.of(number.longValueExact());
    }

    /** The finite number above 0 under {@code key}, or {@code otherwise} when absent or invalid (a problem). */
    double positiveNumber(String key, double otherwise) {
        return has(key) ? positive(key, otherwise, "a finite number > 0") : otherwise;
    }

    /** Whether the value under {@code key} is the word {@code auto} (measured instead of configured). */
    boolean isAuto(String key) {
        return AUTO.equals(entries.get(key));
    }

    /**
     * The integer under {@code key}, or {@code otherwise} when absent, {@code auto}, or invalid (a problem whose
     * expectation names {@code auto} too).
     */
    long integerOrAuto(String key, long otherwise, LongRange range) {
        if (isAuto(key)) {
            return otherwise;
        }
        if (entries.get(key) instanceof String) {
            problems.add(path(key), entries.get(key), range.typeExpected() + ", or " + AUTO);
            return otherwise;
        }
        return integer(key, otherwise, range);
    }

    /**
     * The finite number above 0 under {@code key}, or {@code otherwise} when absent, {@code auto}, or invalid (a
     * problem whose expectation names {@code auto} too).
     */
    double positiveNumberOrAuto(String key, double otherwise) {
        return !has(key) || isAuto(key) ? otherwise : positive(key, otherwise, "a finite number > 0, or " + AUTO);
    }

    /** The finite number above 0 under {@code key} (present), or {@code otherwise} and a problem expecting so. */
    private double positive(String key, double otherwise, String expectation) {
        Object value = entries.get(key);
        if (value instanceof Number number) {
            double d = number.doubleValue();
            if (d > 0 && Double.isFinite(d)) {
                return d;
            }
        }
        problems.add(path(key), value, expectation);
        return otherwise;
    }

    /** The boolean under {@code key}, or {@code otherwise} when absent or not a boolean (a problem). */
    boolean bool(String key, boolean otherwise) {
        if (!has(key)) {
            return otherwise;
        }
        if (entries.get(key) instanceof Boolean value) {
            return value;
        }
        problems.add(path(key), entries.get(key), "true or false");
        return otherwise;
    }

    /** The blocks in the list under {@code key}, each at {@code key[i]}; a non-mapping item is a problem. */
    List<YamlBlock> items(String key, List<?> list) {
        List<YamlBlock> items = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) {
            items.add(at(path(key) + "[" + i + "]", list.get(i), problems));
        }
        return items;
    }
}

package grid.gateway.routing.text;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;

/**
 * What a cluster's name and a model's name may be, and how a request's model is held: a name travels into label
 * values, log lines, traces, the model list and route explanations, so it is bounded and shown as it is written.
 *
 * <p>Stateless and thread-safe.
 */
public final class NameRule {
    /**
     * The longest name, in characters: a Kubernetes object name's limit. A cluster's name is a label value of every
     * per-cluster series, and a scrape whose label values exceed Prometheus' {@code label_value_length_limit} fails
     * whole; a model's name is a span attribute, a field of the model list and of a route explanation.
     */
    public static final int MAX_CHARS = 253;

    private NameRule() {}

    /**
     * Whether {@code name} can name a cluster or a model: not blank, at most {@link #MAX_CHARS} characters, and shown
     * as it is written. A control or an invisible format character could make two names look alike in a label, a log
     * line or a problem, and an unpaired surrogate is written as {@code ?} in UTF-8, so two such names would be one.
     */
    public static boolean valid(String name) {
        requireNonNull(name, "name");
        return !name.isBlank()
                && name.length() <= MAX_CHARS
                && name.codePoints()
                        .noneMatch(c -> Character.isISOControl(c) || Character.getType(c) == Character.FORMAT)
                && new String(name.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8).equals(name);
    }

    /**
     * A request's model as the gateway holds it: as sent when it has at most {@link #MAX_CHARS} characters, else its
     * first {@link #MAX_CHARS} characters (one more where that would split a surrogate pair) followed by {@code …}.
     * A bounded model is always longer than any valid name, so no cluster serves it, and what carries it on (a trace,
     * a route explanation) is bounded too.
     */
    public static String bounded(String model) {
        requireNonNull(model, "model");
        if (model.length() <= MAX_CHARS) {
            return model;
        }
        int end = Character.isHighSurrogate(model.charAt(MAX_CHARS - 1)) ? MAX_CHARS + 1 : MAX_CHARS;
        return model.substring(0, end) + "…";
    }
}

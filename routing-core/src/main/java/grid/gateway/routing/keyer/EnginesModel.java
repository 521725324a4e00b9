package grid.gateway.routing.keyer;

import grid.gateway.routing.text.JsonEscape;
import grid.gateway.routing.text.JsonListener;
import grid.gateway.routing.text.JsonTokenizer;
import grid.gateway.routing.text.NameRule;
import grid.gateway.routing.text.PythonBytes;
import java.util.Optional;

/**
 * The model an engine reads in a body the keyer's strict grammar refused: vLLM parses request bodies with Python's
 * {@code json}, which also reads UTF-16 and UTF-32, the literals {@code NaN} and {@code Infinity}, surrogates encoded
 * in UTF-8, and any depth its own recursion allows. Such a body gets no keys, but it is routed among the clusters that
 * serve the model the engine will serve, not sent by load to any cluster (docs/routing.md).
 *
 * <p>The root object's last {@code model} member counts, as Python's {@code json} keeps the last of duplicated names;
 * a last one that is not a string is no model. A body Python cannot read either has no model (the engine refuses it
 * in its own words). One linear pass, no recursion; a UTF-16 or UTF-32 body is decoded into a UTF-8 copy of at most
 * 1.5 times its size first.
 *
 * <p>Not thread-safe; one per body.
 */
final class EnginesModel implements JsonListener {
    private final byte[] text;
    private boolean pending;
    /** The last root model's string range, quotes included; -1: none, or the last one is not a string. */
    private int start = -1;

    private int end;

    private EnginesModel(byte[] text) {
        this.text = text;
    }

    /** The model Python's {@code json} reads from {@code body}, bounded like the keyer's; empty when none. */
    static Optional<String> read(byte[] body) {
        PythonBytes.Text decoded = PythonBytes.asUtf8(body);
        if (decoded == null) {
            return Optional.empty();
        }
        EnginesModel model = new EnginesModel(decoded.bytes());
        JsonTokenizer.Outcome outcome = JsonTokenizer.tokenize(
                decoded.bytes(), decoded.from(), decoded.to(), model, JsonTokenizer.Grammar.PYTHON);
        if (outcome != JsonTokenizer.Outcome.VALID || model.start < 0) {
            return Optional.empty();
        }
        return Optional.of(NameRule.bounded(JsonEscape.text(decoded.bytes(), model.start + 1, model.end - 1)));
    }

    @Override
    public void name(int nameStart, int nameEnd, boolean escaped, int depth) {
        pending = depth == 1 && FieldName.indexOf(text, nameStart, nameEnd) == FieldName.MODEL.index();
    }

    @Override
    public void string(int valueStart, int valueEnd, boolean escaped, int depth) {
        if (take(depth)) {
            start = valueStart;
            end = valueEnd;
        }
    }

    @Override
    public void scalar(int valueStart, int valueEnd, int depth) {
        if (take(depth)) {
            start = -1;
        }
    }

    @Override
    public void open(int at, boolean object, int depth) {
        if (take(depth)) {
            start = -1;
        }
    }

    /** Whether the value at {@code depth} is a root {@code model} member's; clears the pending name. */
    private boolean take(int depth) {
        boolean model = pending && depth == 1;
        if (depth == 1) {
            pending = false;
        }
        return model;
    }
}

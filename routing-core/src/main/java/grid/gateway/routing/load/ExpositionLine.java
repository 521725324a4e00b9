package grid.gateway.routing.load;

import static grid.gateway.routing.load.PrometheusQueueParser.MAX_NUMBER_LENGTH;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A cursor over one line of a Prometheus text exposition, without its {@code \n}, for {@link PrometheusQueueParser}:
 * each method reads one part of a sample line and says whether it was well formed. Every read is bounded by the
 * line's end, so no input makes it throw, and the cursor only moves forward.
 *
 * <p>Not thread-safe; one per line.
 */
final class ExpositionLine {
    private static final String EOF_MARKER = "# EOF";

    private final String text;
    private final int start;
    private final int end;
    private int pos;
    /** The label whose value {@link #labelValue} looks for, or null. */
    private @Nullable String wantedLabel;
    /** Where the wanted label's value starts and ends in {@link #text}, or -1. */
    private int wantedFrom = -1;

    private int wantedTo = -1;
    /** Each label read, as {@code name="value"} with the value as written, when {@link #series} asked for them. */
    private @Nullable List<String> labels;

    ExpositionLine(String text, int start, int end) {
        this.text = text;
        this.start = start;
        this.pos = start;
        this.end = end;
    }

    /** A fresh cursor at this line's start. */
    ExpositionLine rewound() {
        return new ExpositionLine(text, start, end);
    }

    /** Whether the line is {@code # EOF}, allowing blanks around it. Does not move the cursor. */
    boolean isEofMarker() {
        int at = pos;
        while (at < end && isBlank(text.charAt(at))) {
            at++;
        }
        if (!text.startsWith(EOF_MARKER, at) || at + EOF_MARKER.length() > end) {
            return false;
        }
        for (at += EOF_MARKER.length(); at < end; at++) {
            if (!isBlank(text.charAt(at))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Reads the line as {@code name [{labels}] value [timestamp] [# exemplar]}: the value when the line is a sample
     * of {@code metricName}; NaN for any other line (a comment, a blank line, another metric, an unparseable line),
     * which the caller ignores like a NaN sample.
     */
    double sampleValue(String metricName) {
        skipBlanks();
        if (atEnd() || !isNameStart(peek())) {
            return Double.NaN;
        }
        if (!skipName(metricName)) {
            return Double.NaN;
        }
        boolean blank = skipBlanks();
        if (!atEnd() && peek() == '{') {
            if (!skipLabels()) {
                return Double.NaN;
            }
            skipBlanks();
        } else if (!blank) {
            return Double.NaN;
        }
        double value = number();
        skipBlanks();
        if (atEnd() || peek() == '#') {
            return value;
        }
        double timestamp = number();
        skipBlanks();
        boolean trailerOk = atEnd() || peek() == '#';
        return trailerOk && !Double.isNaN(timestamp) ? value : Double.NaN;
    }

    /**
     * Reads the line as {@link #sampleValue} does and, when it is a well-formed sample of {@code metricName}, returns
     * the value of its label {@code labelName} read as a decimal number (vLLM's {@code cache_config_info} carries its
     * numbers as labels); NaN when the line is no such sample, lacks the label, or the label is no plain number.
     */
    double labelValue(String metricName, String labelName) {
        wantedLabel = labelName;
        double sample = sampleValue(metricName);
        if (Double.isNaN(sample) || wantedFrom < 0 || wantedTo - wantedFrom > MAX_NUMBER_LENGTH) {
            return Double.NaN;
        }
        if (!isDecimal(wantedFrom, wantedTo)) {
            return Double.NaN;
        }
        return Double.parseDouble(text.substring(wantedFrom, wantedTo));
    }

    /**
     * The series the line is a sample of, when it is a well-formed sample of {@code metricName}: its labels sorted by
     * name, each with its value as written (escapes not decoded), so that two lines naming the same labels in another
     * order are one series; null for any other line (a NaN sample too). Reads the line afresh from its start.
     */
    @Nullable
    String series(String metricName) {
        ExpositionLine fresh = rewound();
        fresh.labels = new ArrayList<>();
        if (Double.isNaN(fresh.sampleValue(metricName))) {
            return null;
        }
        List<String> sorted = fresh.labels;
        sorted.sort(null);
        return String.join(",", sorted);
    }

    private boolean atEnd() {
        return pos >= end;
    }

    private char peek() {
        return text.charAt(pos);
    }

    /** Skips spaces, tabs and carriage returns; whether it skipped any. */
    private boolean skipBlanks() {
        int start = pos;
        while (pos < end && isBlank(text.charAt(pos))) {
            pos++;
        }
        return pos > start;
    }

    /** Reads a metric name; whether it equals {@code expected}. */
    private boolean skipName(String expected) {
        int start = pos;
        while (pos < end && isNameChar(text.charAt(pos))) {
            pos++;
        }
        return pos - start == expected.length() && text.regionMatches(start, expected, 0, expected.length());
    }

    /** Reads {@code {name="value", ...}}, an optional trailing comma included; whether it is well formed. */
    private boolean skipLabels() {
        pos++;
        while (true) {
            skipBlanks();
            if (atEnd()) {
                return false;
            }
            if (peek() == '}') {
                pos++;
                return true;
            }
            if (!skipLabel()) {
                return false;
            }
            skipBlanks();
            if (atEnd()) {
                return false;
            }
            char next = text.charAt(pos++);
            if (next == '}') {
                return true;
            }
            if (next != ',') {
                return false;
            }
        }
    }

    /** Reads {@code name="value"}; whether it is well formed. */
    private boolean skipLabel() {
        if (!isLabelNameStart(peek())) {
            return false;
        }
        int nameStart = pos;
        while (pos < end && isLabelNameChar(text.charAt(pos))) {
            pos++;
        }
        int nameEnd = pos;
        boolean wanted = wantedLabel != null
                && pos - nameStart == wantedLabel.length()
                && text.regionMatches(nameStart, wantedLabel, 0, wantedLabel.length());
        skipBlanks();
        if (atEnd() || text.charAt(pos++) != '=') {
            return false;
        }
        skipBlanks();
        if (atEnd() || text.charAt(pos++) != '"') {
            return false;
        }
        int valueStart = pos;
        while (pos < end) {
            char c = text.charAt(pos++);
            if (c == '"') {
                if (labels != null) {
                    labels.add(text.substring(nameStart, nameEnd) + "=\"" + text.substring(valueStart, pos - 1) + "\"");
                }
                if (wanted) {
                    wantedFrom = valueStart;
                    wantedTo = pos - 1;
                }
                return true;
            }
            if (c == '\\') {
                // The escaped character, whatever it is, belongs to the value; at the line's end it is missing.
                pos++;
            }
        }
        return false;
    }

    /** Reads a blank-delimited decimal number; NaN when the token is not one, infinite when it overflows. */
    private double number() {
        int start = pos;
        while (pos < end && !isBlank(text.charAt(pos))) {
            pos++;
        }
        if (pos - start > MAX_NUMBER_LENGTH || !isDecimal(start, pos)) {
            return Double.NaN;
        }
        try {
            return Double.parseDouble(text.substring(start, pos));
        } catch (NumberFormatException unexpected) {
            // isDecimal admits only forms parseDouble reads; this guards the promise never to throw.
            return Double.NaN;
        }
    }

    /** Whether {@code text[from, to)} is {@code [+-]?(d+(.d*)?|.d+)([eE][+-]?d+)?}. */
    private boolean isDecimal(int from, int to) {
        int whole = skipSign(from, to);
        int at = skipDigits(whole, to);
        int digits = at - whole;
        if (at < to && text.charAt(at) == '.') {
            int fraction = at + 1;
            at = skipDigits(fraction, to);
            digits += at - fraction;
        }
        if (digits == 0) {
            return false;
        }
        if (at < to && (text.charAt(at) == 'e' || text.charAt(at) == 'E')) {
            int exponent = skipSign(at + 1, to);
            at = skipDigits(exponent, to);
            if (at == exponent) {
                return false;
            }
        }
        return at == to;
    }

    private int skipSign(int at, int to) {
        return at < to && (text.charAt(at) == '+' || text.charAt(at) == '-') ? at + 1 : at;
    }

    private int skipDigits(int from, int to) {
        int at = from;
        while (at < to && isDigit(text.charAt(at))) {
            at++;
        }
        return at;
    }

    private static boolean isBlank(char c) {
        return c == ' ' || c == '\t' || c == '\r';
    }

    static boolean isNameStart(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    }

    static boolean isNameChar(char c) {
        return isNameStart(c) || (c >= '0' && c <= '9');
    }

    private static boolean isLabelNameStart(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    }

    private static boolean isLabelNameChar(char c) {
        return isLabelNameStart(c) || (c >= '0' && c <= '9');
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}

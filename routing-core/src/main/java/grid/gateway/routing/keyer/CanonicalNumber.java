package grid.gateway.routing.keyer;

import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;

/**
 * Writes a JSON number as its exact decimal value, so that every spelling of one value keys the same: {@code 1},
 * {@code 1.0}, {@code 1e0} and {@code 10E-1} all become {@code 1}, and {@code 0.25} becomes {@code 25e-2}.
 *
 * <p>The form is {@code [-]digits[e exponent]} with no leading or trailing zeros in {@code digits}; zero is
 * {@code 0}. It is computed on the text, with no binary floating point, so it is exact for any length. An exponent
 * of more than 15 digits is written as sent (no real prompt has one, and this keeps the arithmetic in a long).
 *
 * <p>Stateless and thread-safe.
 */
final class CanonicalNumber {
    private static final int MAX_EXPONENT_DIGITS = 15;

    private CanonicalNumber() {}

    /** Writes the number in {@code [start, end)} of {@code b}, which must be a valid JSON number. */
    static void write(byte[] b, int start, int end, CanonicalSink sink) {
        int p = start;
        boolean negative = b[p] == '-';
        if (negative) {
            p++;
        }
        int intStart = p;
        while (p < end && isDigit(b[p])) {
            p++;
        }
        int intEnd = p;
        int fracStart = p;
        int fracEnd = p;
        if (p < end && b[p] == '.') {
            fracStart = p + 1;
            p = fracStart;
            while (p < end && isDigit(b[p])) {
                p++;
            }
            fracEnd = p;
        }
        long exponent = 0;
        if (p < end) {
            OptionalLong parsed = exponent(b, p + 1, end);
            if (parsed.isEmpty()) {
                sink.write(b, start, end - start);
                return;
            }
            exponent = parsed.getAsLong();
        }
        Digits digits = new Digits(b, intStart, intEnd, fracStart, fracEnd);
        int first = 0;
        while (first < digits.length() && digits.at(first) == '0') {
            first++;
        }
        if (first == digits.length()) {
            sink.write('0');
            return;
        }
        int last = digits.length() - 1;
        while (digits.at(last) == '0') {
            last--;
        }
        exponent += (digits.length() - 1 - last) - (fracEnd - fracStart);
        if (negative) {
            sink.write('-');
        }
        for (int i = first; i <= last; i++) {
            sink.write(digits.at(i));
        }
        if (exponent != 0) {
            sink.write('e');
            byte[] text = Long.toString(exponent).getBytes(StandardCharsets.US_ASCII);
            sink.write(text, 0, text.length);
        }
    }

    /** The exponent after 'e', unless it has more digits than a long can safely hold here. */
    private static OptionalLong exponent(byte[] b, int from, int end) {
        int p = from;
        boolean negative = b[p] == '-';
        if (b[p] == '-' || b[p] == '+') {
            p++;
        }
        while (p < end - 1 && b[p] == '0') {
            p++;
        }
        if (end - p > MAX_EXPONENT_DIGITS) {
            return OptionalLong.empty();
        }
        long value = 0;
        for (int i = p; i < end; i++) {
            value = value * 10 + (b[i] - '0');
        }
        return OptionalLong.of(negative ? -value : value);
    }

    private static boolean isDigit(byte c) {
        return c >= '0' && c <= '9';
    }

    /** The integer digits followed by the fraction digits, as one sequence. */
    private static final class Digits {
        private final byte[] b;
        private final int intStart;
        private final int intEnd;
        private final int fracStart;
        private final int fracEnd;

        Digits(byte[] b, int intStart, int intEnd, int fracStart, int fracEnd) {
            this.b = b;
            this.intStart = intStart;
            this.intEnd = intEnd;
            this.fracStart = fracStart;
            this.fracEnd = fracEnd;
        }

        int length() {
            return (intEnd - intStart) + (fracEnd - fracStart);
        }

        byte at(int i) {
            int intLength = intEnd - intStart;
            return i < intLength ? b[intStart + i] : b[fracStart + i - intLength];
        }
    }
}

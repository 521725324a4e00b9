package grid.gateway.enginesim;

import java.math.BigDecimal;

/**
 * Numbers as vLLM's {@code /metrics} writes them (Python's prometheus_client: the shortest {@code repr} of the float,
 * switched to an exponent once its integer part has more than six digits, as Go writes them): {@code 0.0},
 * {@code 28693.0}, {@code 0.0004883408619216212}, {@code 1.7964148453230667e+09}, {@code 1e-05}, {@code +Inf}.
 *
 * <p>Stateless and thread-safe.
 */
final class PromFloat {
    private PromFloat() {}

    static String format(double value) {
        if (Double.isNaN(value)) {
            return "NaN";
        }
        if (Double.isInfinite(value)) {
            return value > 0 ? "+Inf" : "-Inf";
        }
        if (value == 0) {
            return 1 / value < 0 ? "-0.0" : "0.0";
        }
        // Double.toString gives the shortest decimal that reads back to the same double, as Python's repr does.
        BigDecimal decimal = new BigDecimal(Double.toString(Math.abs(value))).stripTrailingZeros();
        String digits = decimal.unscaledValue().toString();
        int exponent = digits.length() - 1 - decimal.scale();
        String sign = value < 0 ? "-" : "";
        if (exponent < -4 || exponent >= 16) {
            return sign + mantissa(digits) + "e" + (exponent < 0 ? "-" : "+") + twoDigits(Math.abs(exponent));
        }
        if (exponent < 0) {
            return sign + "0." + "0".repeat(-exponent - 1) + digits;
        }
        int whole = exponent + 1;
        if (value > 0 && whole > 6) {
            return mantissa(digits) + "e+0" + exponent; // prometheus_client's own spelling: e+09, e+010
        }
        String integer =
                digits.length() >= whole ? digits.substring(0, whole) : digits + "0".repeat(whole - digits.length());
        String fraction = digits.length() > whole ? digits.substring(whole) : "0";
        return sign + integer + "." + fraction;
    }

    private static String mantissa(String digits) {
        return digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
    }

    private static String twoDigits(int exponent) {
        return exponent < 10 ? "0" + exponent : Integer.toString(exponent);
    }
}

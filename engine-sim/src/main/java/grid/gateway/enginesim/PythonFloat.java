package grid.gateway.enginesim;

import jakarta.json.JsonNumber;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Locale;

/**
 * A JSON number Python's {@code json} reads as a {@code float}: any number with a fraction or an exponent, and the
 * literals {@code NaN}, {@code Infinity} and {@code -Infinity}. A double, as Python's float is: {@code 1e400} is
 * infinite, {@code 1e2} is the float 100.0 and never an int ({@link #isIntegral()} is always false, whatever the
 * value). Written as Python's {@code json.dumps} writes it ({@code 0.1}, {@code 1e+16}, {@code NaN}).
 *
 * <p>Immutable.
 */
final class PythonFloat implements JsonNumber {
    private final double value;

    PythonFloat(double value) {
        this.value = value;
    }

    /** Whether the value is neither NaN nor infinite. */
    boolean isFinite() {
        return Double.isFinite(value);
    }

    @Override
    public boolean isIntegral() {
        return false;
    }

    @Override
    public int intValue() {
        return (int) value;
    }

    @Override
    public int intValueExact() {
        return bigDecimalValue().intValueExact();
    }

    @Override
    public long longValue() {
        return (long) value;
    }

    @Override
    public long longValueExact() {
        return bigDecimalValue().longValueExact();
    }

    @Override
    public BigInteger bigIntegerValue() {
        return bigDecimalValue().toBigInteger();
    }

    @Override
    public BigInteger bigIntegerValueExact() {
        return bigDecimalValue().toBigIntegerExact();
    }

    @Override
    public double doubleValue() {
        return value;
    }

    /** The exact value; a {@link NumberFormatException} for NaN and the infinities, which have none. */
    @Override
    public BigDecimal bigDecimalValue() {
        return new BigDecimal(value);
    }

    @Override
    public ValueType getValueType() {
        return ValueType.NUMBER;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof PythonFloat that && Double.compare(value, that.value) == 0;
    }

    @Override
    public int hashCode() {
        return Double.hashCode(value);
    }

    /** As {@code json.dumps} writes the float. */
    @Override
    public String toString() {
        if (Double.isNaN(value)) {
            return "NaN";
        }
        if (Double.isInfinite(value)) {
            return value > 0 ? "Infinity" : "-Infinity";
        }
        return repr(value);
    }

    /**
     * Python's {@code repr} of a finite float: the shortest digits that read back as the value (Java's, since JDK
     * 19, are the same), in positional notation for exponents from -4 to 15 and scientific beyond
     * ({@code 1e-05}, {@code 1e+16}, {@code 1.5e+300}), with {@code .0} on a whole number.
     */
    static String repr(double value) {
        if (value == 0) {
            return 1 / value < 0 ? "-0.0" : "0.0";
        }
        BigDecimal shortest = new BigDecimal(Double.toString(Math.abs(value))).stripTrailingZeros();
        String digits = shortest.unscaledValue().toString();
        int exponent = digits.length() - 1 - shortest.scale();
        String sign = value < 0 ? "-" : "";
        if (exponent < -4 || exponent >= 16) {
            String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
            return String.format(
                    Locale.ROOT, "%s%se%s%02d", sign, mantissa, exponent < 0 ? "-" : "+", Math.abs(exponent));
        }
        String plain = shortest.toPlainString();
        return sign + (plain.indexOf('.') < 0 ? plain + ".0" : plain);
    }
}

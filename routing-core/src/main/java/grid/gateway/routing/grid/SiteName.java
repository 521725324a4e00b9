package grid.gateway.routing.grid;

import static java.util.Objects.requireNonNull;

import java.util.regex.Pattern;

/**
 * A site's name: a DNS-1123 label (1 to 63 characters of lowercase letters, digits and '-', starting and ending
 * with a letter or digit), because site names go into stored ids (docs/design.md §5).
 *
 * <p>Thread-safe (immutable).
 *
 * @param value the label
 */
public record SiteName(String value) {
    private static final Pattern DNS_1123_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

    /** Refuses a value that is not a DNS-1123 label, naming it in the message. */
    public SiteName {
        requireNonNull(value, "value");
        if (!isValid(value)) {
            throw new IllegalArgumentException("site name \"" + value
                    + "\" is not a DNS-1123 label (expected: 1-63 of a-z, 0-9 and '-', starting and ending with a"
                    + " letter or digit)");
        }
    }

    /** Whether {@code value} is a DNS-1123 label. */
    public static boolean isValid(String value) {
        return DNS_1123_LABEL.matcher(value).matches();
    }

    @Override
    public String toString() {
        return value;
    }
}

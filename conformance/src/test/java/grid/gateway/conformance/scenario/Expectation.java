package grid.gateway.conformance.scenario;

import java.util.List;
import java.util.Map;

/**
 * What an {@code expect} step checks; every field is optional (null or empty: not checked).
 *
 * @param status the answer's status
 * @param servedBy the one cluster whose engine received the request, or {@code none}
 * @param headers answer headers, exact values
 * @param json JSON fields of the answer (dotted path) and their expected values as text
 * @param jsonMatches JSON fields and regular expressions their text must match fully
 * @param bodyContains text the answer body must contain
 * @param bodyMatches a regular expression found somewhere in the answer body
 * @param bodyLacksMatch a regular expression found nowhere in the answer body
 * @param upstreamPath the raw path and query the serving engine received
 * @param upstreamBodyContains text the body the serving engine received must contain
 * @param upstreamBodyLacks text the body the serving engine received must not contain
 * @param metricDeltas gateway metrics and their change since the scenario started
 */
public record Expectation(
        Integer status,
        String servedBy,
        Map<String, String> headers,
        Map<String, String> json,
        Map<String, String> jsonMatches,
        String bodyContains,
        String bodyMatches,
        String bodyLacksMatch,
        String upstreamPath,
        String upstreamBodyContains,
        String upstreamBodyLacks,
        List<MetricDelta> metricDeltas) {

    /**
     * A change of a gateway metric since the scenario started, summed over the series whose labels include
     * {@code labels}: exactly {@code delta}, or at least {@code min}, or inside the central interval of
     * Binomial({@code binomialN}, {@code binomialP}) at {@code confidence}.
     */
    public record MetricDelta(
            String name,
            Map<String, String> labels,
            Long delta,
            Long min,
            Integer binomialN,
            Double binomialP,
            Double confidence) {}
}

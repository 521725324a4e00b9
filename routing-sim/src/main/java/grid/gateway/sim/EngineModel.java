package grid.gateway.sim;

import grid.gateway.routing.keyer.ApiDialect;
import grid.gateway.routing.load.EngineSample;
import grid.gateway.routing.prefix.UsageReport;
import java.util.OptionalDouble;

/**
 * What a grid's engines let the gateway see of them, beside what they do ({@link ClusterModel}): which of vLLM's
 * series their {@code /metrics} exports, and how their usage reports cached tokens.
 *
 * <pre>
 *   twin   every series calibration reads, and cached_tokens always written (0 included): the engines the router's
 *          design assumed (the synthetic grids of the first reports)
 *   vllm   what a vLLM server behind the gateway shows (testdata/vllm/): no request_inference_time_seconds (a version
 *          or build without it; the queued-request cost then stays configured), and cached_tokens only above 0
 *          ("prompt_tokens_details": null for 0, so the gateway must tell "reported 0" from "does not report")
 * </pre>
 *
 * <p>Thread-safe (immutable).
 *
 * @param label the name in reports
 * @param inferenceHistogram whether {@code vllm:request_inference_time_seconds} is exported
 * @param nullForZero whether a usage says nothing, rather than 0, when nothing was cached
 */
public record EngineModel(String label, boolean inferenceHistogram, boolean nullForZero) {
    /** The router's twin: everything exported, 0 said out loud. */
    public static final EngineModel TWIN = new EngineModel("twin", true, false);
    /** As vLLM shows itself: no inference-time histogram, nothing said for 0 cached tokens. */
    public static final EngineModel VLLM = new EngineModel("vllm", false, true);

    /** The routing core's view of a scrape: what {@code EngineSeriesParser} would read from these engines' text. */
    public EngineSample sample(EngineSeries series) {
        OptionalDouble none = OptionalDouble.empty();
        return new EngineSample(
                series.nanos(),
                OptionalDouble.of(series.waiting()),
                OptionalDouble.of(series.running()),
                OptionalDouble.of(series.promptTokens()),
                OptionalDouble.of(series.prefixCacheHits()),
                OptionalDouble.of(series.prefillSecondsSum()),
                inferenceHistogram ? OptionalDouble.of(series.inferenceSecondsSum()) : none,
                inferenceHistogram ? OptionalDouble.of(series.inferenceCount()) : none,
                OptionalDouble.of((double) series.numGpuBlocks() * series.blockSize()),
                OptionalDouble.of(series.prefillCount()),
                OptionalDouble.of(series.requestSuccess()));
    }

    /** The usage of an answer with {@code cachedTokens} cached, as these engines write it (Chat Completions). */
    public UsageReport usage(long cachedTokens) {
        return nullForZero && cachedTokens == 0
                ? UsageReport.silent(ApiDialect.CHAT_COMPLETIONS)
                : UsageReport.counted(ApiDialect.CHAT_COMPLETIONS, cachedTokens);
    }
}

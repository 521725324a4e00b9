package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.time.Randomness;
import io.helidon.common.tls.Tls;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.random.RandomGenerator;

/**
 * How one simulated engine behaves: where it listens, which models it serves, its queue, its speeds, its prefix
 * cache and the time and randomness it runs on.
 *
 * <p>Immutable. Build one with {@link #builder()}; every value has a default.
 *
 * @param host the address to bind; default {@code 127.0.0.1}
 * @param port the port to bind, {@code 0} for any free port; default 0
 * @param name the engine's name, printed on start and used in log lines; default {@code engine}
 * @param models the served model names, the first one labels {@code /metrics}; default {@code [demo-model]}
 * @param slots requests that run at once; later ones wait (vLLM's {@code max_num_seqs}); default 4
 * @param prefillTokensPerSecond prompt tokens computed per second, per request; default 8000
 * @param decodeTokensPerSecond output tokens generated per second, per request; default 60
 * @param cacheBlocks prefix-cache capacity in blocks of {@code blockSize} tokens ({@code num_gpu_blocks}); default
 *     4096
 * @param blockSize tokens per KV block (vLLM's {@code block_size}: 16 on most GPUs, 128 on the CPU backend); cached
 *     token counts are whole blocks; default 16
 * @param maxModelLen the context length (vLLM's {@code max_model_len}): a prompt with its output limit beyond it,
 *     or an output limit beyond it alone, gets vLLM's validation 400; default 32768
 * @param answerTokens output tokens of an answer when the request's limit is higher; default 8
 * @param pacer where simulated time is spent; default {@link Pacer#sleeping()}
 * @param wallClock the source of {@code created} timestamps; default the system clock
 * @param random the source of ids; default a thread-local random source
 * @param tls serve HTTPS with this TLS; default empty: plain HTTP
 * @param api which of vLLM's behaviours and which additions the API surface has; default {@link ApiSurface#VLLM}
 * @param frontend how the API server in front of the engine behaves under a burst; default {@link Frontend#NONE}
 */
public record EngineSettings(
        String host,
        int port,
        String name,
        List<String> models,
        int slots,
        double prefillTokensPerSecond,
        double decodeTokensPerSecond,
        int cacheBlocks,
        int blockSize,
        int maxModelLen,
        int answerTokens,
        Pacer pacer,
        InstantSource wallClock,
        RandomGenerator random,
        Optional<Tls> tls,
        ApiSurface api,
        Frontend frontend) {

    /** Validates and copies. */
    public EngineSettings {
        requireNonNull(host, "host");
        requireNonNull(name, "name");
        models = List.copyOf(models);
        requireNonNull(pacer, "pacer");
        requireNonNull(wallClock, "wallClock");
        requireNonNull(random, "random");
        requireNonNull(tls, "tls");
        requireNonNull(api, "api");
        requireNonNull(frontend, "frontend");
        check(port >= 0 && port <= 65535, "port", port);
        check(!models.isEmpty(), "models", models);
        check(slots > 0, "slots", slots);
        check(prefillTokensPerSecond > 0, "prefillTokensPerSecond", prefillTokensPerSecond);
        check(decodeTokensPerSecond > 0, "decodeTokensPerSecond", decodeTokensPerSecond);
        check(cacheBlocks >= 0, "cacheBlocks", cacheBlocks);
        check(blockSize > 0 && blockSize <= MAX_BLOCK_SIZE, "blockSize", blockSize);
        check(maxModelLen > 0, "maxModelLen", maxModelLen);
        check(answerTokens > 0, "answerTokens", answerTokens);
    }

    /** The largest block size accepted, in tokens. */
    static final int MAX_BLOCK_SIZE = 1024;

    /** A builder holding every default. */
    public static Builder builder() {
        return new Builder();
    }

    /** These settings for one pod of a cluster: bound at {@code podHost}:{@code podPort}, named {@code podName}. */
    public EngineSettings pod(String podHost, int podPort, String podName) {
        return new EngineSettings(
                podHost,
                podPort,
                podName,
                models,
                slots,
                prefillTokensPerSecond,
                decodeTokensPerSecond,
                cacheBlocks,
                blockSize,
                maxModelLen,
                answerTokens,
                pacer,
                wallClock,
                random,
                tls,
                api,
                frontend);
    }

    /** The model labelling {@code /metrics} and answering requests that name none. */
    public String defaultModel() {
        return models.getFirst();
    }

    private static void check(boolean ok, String field, Object value) {
        if (!ok) {
            throw new IllegalArgumentException("engine." + field + ": " + value + " (out of range)");
        }
    }

    /** Builds {@link EngineSettings}. Not thread-safe. */
    public static final class Builder {
        private String host = "127.0.0.1";
        private int port;
        private String name = "engine";
        private final List<String> models = new ArrayList<>();
        private int slots = 4;
        private double prefillTokensPerSecond = 8000;
        private double decodeTokensPerSecond = 60;
        private int cacheBlocks = 4096;
        private int blockSize = PromptBlocks.BLOCK_TOKENS;
        private int maxModelLen = 32_768;
        private int answerTokens = 8;
        private Pacer pacer = Pacer.sleeping();
        private InstantSource wallClock = InstantSource.system();
        private RandomGenerator random = Randomness.INSTANCE;
        private Optional<Tls> tls = Optional.empty();
        private ApiSurface api = ApiSurface.VLLM;
        private Frontend frontend = Frontend.NONE;

        private Builder() {}

        /** The address to bind. */
        public Builder host(String value) {
            this.host = requireNonNull(value, "host");
            return this;
        }

        /** The port to bind; 0 picks a free one. */
        public Builder port(int value) {
            this.port = value;
            return this;
        }

        /** The engine's name. */
        public Builder name(String value) {
            this.name = requireNonNull(value, "name");
            return this;
        }

        /** Adds a served model; the first one added labels {@code /metrics}. */
        public Builder model(String value) {
            models.add(requireNonNull(value, "model"));
            return this;
        }

        /** Requests that run at once. */
        public Builder slots(int value) {
            this.slots = value;
            return this;
        }

        /** Prompt tokens computed per second. */
        public Builder prefillTokensPerSecond(double value) {
            this.prefillTokensPerSecond = value;
            return this;
        }

        /** Output tokens generated per second. */
        public Builder decodeTokensPerSecond(double value) {
            this.decodeTokensPerSecond = value;
            return this;
        }

        /** Prefix-cache capacity in blocks. */
        public Builder cacheBlocks(int value) {
            this.cacheBlocks = value;
            return this;
        }

        /** Tokens per KV block (16 or 128 as vLLM reports them). */
        public Builder blockSize(int value) {
            this.blockSize = value;
            return this;
        }

        /** The context length, in tokens. */
        public Builder maxModelLen(int value) {
            this.maxModelLen = value;
            return this;
        }

        /** Which of vLLM's behaviours and which additions the API surface has. */
        public Builder api(ApiSurface value) {
            this.api = requireNonNull(value, "api");
            return this;
        }

        /** Changes the API surface set so far, such as {@code api(ApiSurface::withOpenAiAdditions)}. */
        public Builder api(UnaryOperator<ApiSurface> change) {
            return api(change.apply(api));
        }

        /** How the API server in front of the engine behaves under a burst. */
        public Builder frontend(Frontend value) {
            this.frontend = requireNonNull(value, "frontend");
            return this;
        }

        /** Output tokens of an answer when the request allows more. */
        public Builder answerTokens(int value) {
            this.answerTokens = value;
            return this;
        }

        /** Where simulated time is spent. */
        public Builder pacer(Pacer value) {
            this.pacer = requireNonNull(value, "pacer");
            return this;
        }

        /** No simulated delays: the same as {@code pacer(Pacer.instant())}. */
        public Builder instant() {
            return pacer(Pacer.instant());
        }

        /** The source of {@code created} timestamps. */
        public Builder wallClock(InstantSource value) {
            this.wallClock = requireNonNull(value, "wallClock");
            return this;
        }

        /** The source of ids. */
        public Builder random(RandomGenerator value) {
            this.random = requireNonNull(value, "random");
            return this;
        }

        /** Serve HTTPS with {@code value} (certificate and key; a trust store and client auth for mutual TLS). */
        public Builder tls(Tls value) {
            this.tls = Optional.of(requireNonNull(value, "tls"));
            return this;
        }

        /** The settings; {@code demo-model} when no model was added. */
        public EngineSettings build() {
            List<String> served = models.isEmpty() ? List.of("demo-model") : models;
            return new EngineSettings(
                    host,
                    port,
                    name,
                    served,
                    slots,
                    prefillTokensPerSecond,
                    decodeTokensPerSecond,
                    cacheBlocks,
                    blockSize,
                    maxModelLen,
                    answerTokens,
                    pacer,
                    wallClock,
                    random,
                    tls,
                    api,
                    frontend);
        }

        /** Builds the settings and starts a simulator with them. */
        public EngineSimulator start() {
            return EngineSimulator.start(build());
        }
    }
}

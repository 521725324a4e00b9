package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * {@code POST /v1/completions} in vLLM's shapes (docs/design.md §A2, §A8): a {@code text_completion} with {@code n}
 * choices ({@link Samples}) per prompt (a string, a list of strings, a token-id list or a list of them; each prompt runs as its own engine
 * request, one after the other, all validated before the first runs), or a stream of {@code text_completion}
 * chunks, a usage chunk with {@code "choices": []} only with {@code stream_options.include_usage}, then
 * {@code [DONE]} ({@code testdata/vllm/completions_*}). A batch's usage sums the prompts' tokens and outputs but
 * reports one prompt's cached tokens, as vLLM's {@code OpenAIServingCompletion} does: the last prompt's in a plain
 * answer, in a stream the prompt whose output came first (here the first: the prompts run in turn). {@code max_tokens} defaults to 16 as in vLLM; {@code suffix}
 * is refused as vLLM refuses it. Usage as {@link UsageJson#openAi} writes it.
 *
 * <p>Thread-safe and stateless beyond its parts.
 */
final class CompletionsApi {
    private static final int DEFAULT_MAX_TOKENS = 16;

    private final ApiParts parts;

    CompletionsApi(ApiParts parts) {
        this.parts = requireNonNull(parts, "parts");
    }

    void create(Exchange exchange) throws InterruptedException {
        JsonObject body = exchange.json();
        RequestModel.completion(body);
        String model = parts.catalog().resolve(body);
        if (JsonText.string(body, "suffix").isPresent()) {
            throw RequestRejected.badRequest("suffix is not currently supported", "suffix");
        }
        Optional<String> salt = ModelCatalog.salt(body);
        OptionalInt limit = ModelCatalog.maxTokens(body, "max_tokens");
        List<Prompt> prompts = new ArrayList<>();
        for (String text : prompts(body)) {
            prompts.add(new Prompt(model, text, salt, OptionalInt.of(limit.orElse(DEFAULT_MAX_TOKENS)), text));
        }
        prompts.forEach(parts.engine()::validate);
        int n = Samples.requested(body);
        boolean stream = JsonText.flag(body, "stream", false);
        ChatApi.StreamUsage includeUsage = ChatApi.StreamUsage.of(body);
        ChatApi.Head head = new ChatApi.Head(parts.ids().completion(), parts.now(), model);
        OptionalInt logprobs = CompletionLogprobs.requested(body);
        if (stream) {
            stream(exchange, prompts, new AnswerShape(head, includeUsage, logprobs, n));
        } else {
            plain(exchange, prompts, new AnswerShape(head, includeUsage, logprobs, n));
        }
    }

    /** What every choice repeats or reports, and how many choices each prompt has. */
    private record AnswerShape(ChatApi.Head head, ChatApi.StreamUsage usage, OptionalInt logprobs, int n) {}

    private void plain(Exchange exchange, List<Prompt> prompts, AnswerShape answer) throws InterruptedException {
        JsonArrayBuilder choices = JsonText.array();
        Usage total = new Usage(0, 0, 0);
        for (int i = 0; i < prompts.size(); i++) {
            try (Samples samples = new Samples(parts.engine(), prompts.get(i), exchange.faults(), answer.n())) {
                do {
                    Run run = samples.run();
                    run.decodeAll();
                    choices.add(choice(
                                    i * answer.n() + samples.index(),
                                    run.text(),
                                    CompletionLogprobs.of(run.pieces(), 0, answer.logprobs()))
                            .add("finish_reason", ChatApi.finishReason(run))
                            .addNull("stop_reason")
                            .addNull("token_ids")
                            .addNull("prompt_logprobs")
                            .addNull("prompt_token_ids"));
                } while (samples.next());
                total = add(total, samples.usage(), samples.usage().cachedTokens());
            }
        }
        exchange.answer(
                200,
                answer.head()
                        .start("text_completion")
                        .add("choices", choices)
                        .addNull("service_tier")
                        .add("system_fingerprint", ApiParts.FINGERPRINT)
                        .add("usage", UsageJson.openAi(total, parts.api()))
                        .addNull("kv_transfer_params")
                        .build());
    }

    /**
     * Each prompt's choices in turn, their chunks indexed {@code prompt × n + choice}; with continuous usage each
     * chunk carries its own prompt's tokens and its choice's output so far, as vLLM's do.
     */
    private void stream(Exchange exchange, List<Prompt> prompts, AnswerShape streamed) throws InterruptedException {
        EventStream events = null;
        Usage total = new Usage(0, 0, 0);
        for (int i = 0; i < prompts.size(); i++) {
            try (Samples samples = new Samples(parts.engine(), prompts.get(i), exchange.faults(), streamed.n())) {
                events = events == null ? exchange.stream() : events;
                do {
                    streamChoice(events, samples, i * streamed.n() + samples.index(), streamed);
                } while (samples.next());
                total = add(total, samples.usage(), i == 0 ? samples.usage().cachedTokens() : total.cachedTokens());
            }
        }
        requireNonNull(events, "events");
        if (streamed.usage().atEnd()) {
            events.data(streamed.head()
                    .start("text_completion")
                    .add("choices", JsonText.array())
                    .add("usage", UsageJson.openAiChunk(total, parts.api()))
                    .add("system_fingerprint", ApiParts.FINGERPRINT)
                    .build());
        }
        events.done();
        events.end();
    }

    private static void streamChoice(EventStream events, Samples samples, int index, AnswerShape streamed)
            throws InterruptedException {
        Run run = samples.run();
        int offset = 0;
        for (int t = 0; t < run.pieces().size(); t++) {
            run.nextToken();
            boolean last = t == run.pieces().size() - 1;
            String piece = run.pieces().get(t);
            JsonObjectBuilder choice =
                    choice(index, piece, CompletionLogprobs.of(List.of(piece), offset, streamed.logprobs()));
            offset += piece.codePointCount(0, piece.length());
            if (last) {
                choice.add("finish_reason", ChatApi.finishReason(run));
            } else {
                choice.addNull("finish_reason");
            }
            choice.addNull("stop_reason").addNull("prompt_token_ids").addNull("token_ids");
            JsonObjectBuilder chunk = streamed.head()
                    .start("text_completion")
                    .add("choices", JsonText.array().add(choice));
            if (streamed.usage().everyChunk()) {
                chunk.add("usage", UsageJson.continuous(run.usage().promptTokens(), t + 1));
            }
            events.data(chunk.build());
        }
    }

    /** A choice's leading fields: the caller adds {@code finish_reason}, {@code stop_reason} and the rest. */
    private static JsonObjectBuilder choice(int index, String text, JsonValue logprobs) {
        return JsonText.object().add("index", index).add("text", text).add("logprobs", logprobs);
    }

    /** The rendered prompts of {@code body}: one per string or token list; a 400 when there is none. */
    private static List<String> prompts(JsonObject body) {
        JsonValue prompt = body.get("prompt");
        if (prompt instanceof JsonString) {
            return List.of(PromptText.completion(prompt));
        }
        if (!(prompt instanceof JsonArray array) || array.isEmpty()) {
            throw RequestRejected.badRequest(
                    "Either prompt or prompt_embeds must be provided and non-empty.", "prompt");
        }
        if (array.getFirst().getValueType() == JsonValue.ValueType.NUMBER) {
            return List.of(PromptText.completion(array));
        }
        List<String> texts = new ArrayList<>();
        for (JsonValue each : array) {
            if (!(each instanceof JsonString) && !(each instanceof JsonArray)) {
                throw RequestRejected.badRequest("prompt: expected strings or token lists", "prompt");
            }
            texts.add(PromptText.completion(each));
        }
        return texts;
    }

    /**
     * The usage of a batch so far plus one more prompt's: prompt and output tokens summed, but one prompt's cached
     * tokens, as vLLM reports a batch (the last prompt's in a plain answer, the first output's prompt in a stream).
     */
    private static Usage add(Usage total, Usage prompt, int cached) {
        return new Usage(
                total.promptTokens() + prompt.promptTokens(), cached, total.outputTokens() + prompt.outputTokens());
    }
}

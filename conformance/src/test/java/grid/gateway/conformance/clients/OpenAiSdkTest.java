package grid.gateway.conformance.clients;

import static grid.gateway.conformance.clients.LoopbackGrid.DRAINED_MODEL;
import static grid.gateway.conformance.clients.LoopbackGrid.MODEL;
import static grid.gateway.conformance.clients.LoopbackGrid.TAGGED_CONVERSATION_ID;
import static grid.gateway.conformance.clients.LoopbackGrid.TAGGED_RESPONSE_ID;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.JsonValue;
import com.openai.core.http.StreamResponse;
import com.openai.errors.BadRequestException;
import com.openai.errors.InternalServerException;
import com.openai.errors.NotFoundException;
import com.openai.errors.OpenAIServiceException;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.conversations.Conversation;
import com.openai.models.conversations.ConversationCreateParams;
import com.openai.models.conversations.items.ConversationItem;
import com.openai.models.responses.Response;
import com.openai.models.responses.ResponseCreateParams;
import com.openai.models.responses.ResponseStatus;
import com.openai.models.responses.ResponseStreamEvent;
import grid.gateway.enginesim.Fault;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official OpenAI Java SDK ({@code com.openai:openai-java}) against the gateway on loopback: every answer the
 * gateway gives, its own errors included, must parse into the SDK's types and exceptions.
 */
class OpenAiSdkTest {
    /** What the simulated engine answers to the prompt {@code hello grid}: its words up to 8 tokens. */
    private static final String ANSWER = "hello grid hello grid hello grid hello grid";

    private static final String UNKNOWN_ID_MESSAGE = "No stored response or conversation has that id.";

    @TempDir
    static Path dir;

    private static LoopbackGrid grid;
    private static OpenAIClient client;

    @BeforeAll
    static void start() {
        grid = new LoopbackGrid(dir);
        client = OpenAIOkHttpClient.builder()
                .baseUrl(grid.baseUrl() + "/v1")
                .apiKey("sk-any")
                .maxRetries(0)
                .build();
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (grid != null) {
            grid.close();
        }
    }

    private static ChatCompletionCreateParams chat(String model) {
        return ChatCompletionCreateParams.builder()
                .model(model)
                .addUserMessage("hello grid")
                .build();
    }

    private static ResponseCreateParams.Builder response() {
        return ResponseCreateParams.builder().model(MODEL).input("hello grid");
    }

    private static String outputText(Response response) {
        return response.output()
                .getFirst()
                .asMessage()
                .content()
                .getFirst()
                .asOutputText()
                .text();
    }

    @Test
    void chatCompletion_plain_parsesAnswer() {
        ChatCompletion completion = client.chat().completions().create(chat(MODEL));

        assertThat(completion.choices()).hasSize(1);
        assertThat(completion.choices().getFirst().message().content()).contains(ANSWER);
        assertThat(completion.model()).isEqualTo(MODEL);
    }

    @Test
    void chatCompletion_streamed_yieldsChunksAndFinalText() {
        List<ChatCompletionChunk> chunks = new ArrayList<>();
        try (StreamResponse<ChatCompletionChunk> stream =
                client.chat().completions().createStreaming(chat(MODEL))) {
            stream.stream().forEach(chunks::add);
        }

        StringBuilder text = new StringBuilder();
        chunks.forEach(chunk -> chunk.choices().forEach(c -> c.delta().content().ifPresent(text::append)));
        assertThat(chunks).hasSizeGreaterThan(2);
        assertThat(text).hasToString(ANSWER);
        assertThat(chunks.stream()
                        .flatMap(chunk -> chunk.choices().stream())
                        .flatMap(c -> c.finishReason().stream())
                        .toList())
                .containsExactly(ChatCompletionChunk.Choice.FinishReason.STOP);
    }

    @Test
    void responsesCreate_plain_idTaggedAndRetrieveDeleteWork() {
        Response created = client.responses().create(response().build());
        String id = created.id();

        assertThat(id).matches(TAGGED_RESPONSE_ID);
        assertThat(outputText(created)).isEqualTo(ANSWER);
        Response retrieved = client.responses().retrieve(id);
        assertThat(retrieved.id()).isEqualTo(id);
        assertThat(retrieved.status()).contains(ResponseStatus.COMPLETED);
        assertThat(outputText(retrieved)).isEqualTo(ANSWER);

        client.responses().delete(id);

        assertThatThrownBy(() -> client.responses().retrieve(id))
                .isInstanceOfSatisfying(
                        NotFoundException.class, e -> assertThat(e.statusCode()).isEqualTo(404));
    }

    @Test
    void responsesCreate_streamed_yieldsDeltasAndCompletedResponseWithTaggedId() {
        List<ResponseStreamEvent> events = new ArrayList<>();
        try (StreamResponse<ResponseStreamEvent> stream =
                client.responses().createStreaming(response().build())) {
            stream.stream().forEach(events::add);
        }

        StringBuilder text = new StringBuilder();
        events.forEach(e -> e.outputTextDelta().ifPresent(d -> text.append(d.delta())));
        assertThat(text).hasToString(ANSWER);
        assertThat(events.getFirst().created())
                .hasValueSatisfying(c -> assertThat(c.response().id()).matches(TAGGED_RESPONSE_ID));
        Response completed = events.getLast().asCompleted().response();
        assertThat(completed.id()).matches(TAGGED_RESPONSE_ID);
        assertThat(client.responses().retrieve(completed.id()).id()).isEqualTo(completed.id());
    }

    @Test
    void responsesCreate_previousResponseIdTagged_continuesTheStoredResponse() {
        Response first = client.responses().create(response().build());

        Response second = client.responses()
                .create(response()
                        .input("and again")
                        .previousResponseId(first.id())
                        .build());

        assertThat(second.id()).matches(TAGGED_RESPONSE_ID).isNotEqualTo(first.id());
        assertThat(second.previousResponseId()).contains(first.id());
        assertThat(outputText(second)).isEqualTo("and again and again and again and again");
    }

    @Test
    void responsesCancel_backgroundResponseByTaggedId_cancelled() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        grid.eastA.failNext(1, Fault.holdFirstByte(gate));
        try {
            Response queued =
                    client.responses().create(response().background(true).build());
            assertThat(queued.id()).matches(TAGGED_RESPONSE_ID);
            assertThat(queued.status()).contains(ResponseStatus.QUEUED);

            Response cancelled = client.responses().cancel(queued.id());

            assertThat(cancelled.id()).isEqualTo(queued.id());
            assertThat(cancelled.status()).contains(ResponseStatus.CANCELLED);
        } finally {
            gate.countDown();
        }
    }

    @Test
    void responsesCancel_synchronousResponse_badRequestWithEngineMessage() {
        Response done = client.responses().create(response().build());

        assertThatThrownBy(() -> client.responses().cancel(done.id()))
                .isInstanceOfSatisfying(BadRequestException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(400);
                    assertThat(e).hasMessageContaining("Cannot cancel a synchronous response.");
                });
    }

    @Test
    void conversations_createThenRespondInIt_idTaggedAndTurnStored() {
        Conversation conversation = client.conversations()
                .create(ConversationCreateParams.builder()
                        .metadata(ConversationCreateParams.Metadata.builder()
                                .putAdditionalProperty("topic", JsonValue.from("sdk"))
                                .build())
                        .build());
        assertThat(conversation.id()).matches(TAGGED_CONVERSATION_ID);

        Response answered = client.responses()
                .create(response().conversation(conversation.id()).build());

        assertThat(answered.id()).matches(TAGGED_RESPONSE_ID);
        assertThat(outputText(answered)).isEqualTo(ANSWER);
        assertThat(client.conversations().retrieve(conversation.id()).id()).isEqualTo(conversation.id());
        List<ConversationItem> items =
                client.conversations().items().list(conversation.id()).items();
        assertThat(items).hasSize(2);
    }

    @Test
    void responsesRetrieve_unknownTaggedId_notFoundWithGatewayMessage() {
        assertThatThrownBy(() -> client.responses().retrieve("resp_east.0123abcd..0123456789abcdef"))
                .isInstanceOfSatisfying(NotFoundException.class, e -> {
                    assertGatewayError(e, 404, "not_found", "invalid_request_error");
                    assertThat(e).hasMessageContaining(UNKNOWN_ID_MESSAGE);
                });
    }

    @Test
    void responsesCreate_previousResponseIdUnknownTag_notFoundWithGatewayMessage() {
        assertThatThrownBy(() -> client.responses()
                        .create(response()
                                .previousResponseId("resp_west.0123abcd..0123456789abcdef")
                                .build()))
                .isInstanceOfSatisfying(NotFoundException.class, e -> {
                    assertGatewayError(e, 404, "not_found", "invalid_request_error");
                    assertThat(e).hasMessageContaining(UNKNOWN_ID_MESSAGE);
                });
    }

    @Test
    void chatCompletion_unknownModel_notFoundWithGatewayMessage() {
        assertThatThrownBy(() -> client.chat().completions().create(chat("no-such-model")))
                .isInstanceOfSatisfying(NotFoundException.class, e -> {
                    assertGatewayError(e, 404, "model_not_found", "invalid_request_error");
                    assertThat(e).hasMessageContaining("No backend cluster serves the requested model.");
                });
    }

    @Test
    void chatCompletion_onlyDrainingClusterServesModel_internalServerErrorWithRetryAfter() {
        assertThatThrownBy(() -> client.chat().completions().create(chat(DRAINED_MODEL)))
                .isInstanceOfSatisfying(InternalServerException.class, e -> {
                    assertGatewayError(e, 503, "unavailable", "server_error");
                    assertThat(e.headers().values("retry-after")).containsExactly("5");
                    assertThat(e).hasMessageContaining("No backend cluster can take this request now; retry later.");
                });
    }

    @Test
    void chatCompletionStreamed_onlyDrainingClusterServesModel_internalServerErrorBeforeAnyChunk() {
        assertThatThrownBy(() -> {
                    try (StreamResponse<ChatCompletionChunk> stream =
                            client.chat().completions().createStreaming(chat(DRAINED_MODEL))) {
                        stream.stream().forEach(chunk -> {});
                    }
                })
                .isInstanceOfSatisfying(
                        InternalServerException.class, e -> assertGatewayError(e, 503, "unavailable", "server_error"));
    }

    private static void assertGatewayError(OpenAIServiceException e, int status, String code, String type) {
        assertThat(e.statusCode()).isEqualTo(status);
        assertThat(e.code()).contains(code);
        assertThat(e.type()).contains(type);
    }
}

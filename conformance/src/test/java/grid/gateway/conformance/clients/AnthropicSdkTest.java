package grid.gateway.conformance.clients;

import static grid.gateway.conformance.clients.LoopbackGrid.DRAINED_MODEL;
import static grid.gateway.conformance.clients.LoopbackGrid.MODEL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.errors.AnthropicServiceException;
import com.anthropic.errors.NotFoundException;
import com.anthropic.errors.ServiceUnavailableException;
import com.anthropic.helpers.MessageAccumulator;
import com.anthropic.models.ErrorType;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import com.anthropic.models.messages.StopReason;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official Anthropic Java SDK ({@code com.anthropic:anthropic-java}) against the gateway's {@code /v1/messages}
 * on loopback: streamed and plain answers, and the gateway's own errors in Anthropic's shape.
 */
class AnthropicSdkTest {
    /** What the simulated engine answers to the prompt {@code hello grid}: its words up to 8 tokens. */
    private static final String ANSWER = "hello grid hello grid hello grid hello grid";

    @TempDir
    static Path dir;

    private static LoopbackGrid grid;
    private static AnthropicClient client;

    @BeforeAll
    static void start() {
        grid = new LoopbackGrid(dir);
        client = AnthropicOkHttpClient.builder()
                .baseUrl(grid.baseUrl())
                .apiKey("sk-ant-any")
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

    private static MessageCreateParams message(String model) {
        return MessageCreateParams.builder()
                .model(model)
                .maxTokens(64)
                .addUserMessage("hello grid")
                .build();
    }

    private static String text(Message message) {
        return message.content().getFirst().asText().text();
    }

    @Test
    void messages_plain_parsesAnswer() {
        Message answer = client.messages().create(message(MODEL));

        assertThat(text(answer)).isEqualTo(ANSWER);
        assertThat(answer.stopReason()).contains(StopReason.END_TURN);
        assertThat(answer.usage().outputTokens()).isEqualTo(8);
    }

    @Test
    void messages_streamed_yieldsTextDeltasAndFinalMessage() {
        List<RawMessageStreamEvent> events = new ArrayList<>();
        MessageAccumulator accumulator = MessageAccumulator.create();
        try (StreamResponse<RawMessageStreamEvent> stream = client.messages().createStreaming(message(MODEL))) {
            stream.stream().forEach(event -> events.add(accumulator.accumulate(event)));
        }

        List<String> deltas = events.stream()
                .flatMap(e -> e.contentBlockDelta().stream())
                .flatMap(d -> d.delta().text().stream())
                .map(t -> t.text())
                .toList();
        assertThat(deltas).hasSizeGreaterThan(1);
        assertThat(String.join("", deltas)).isEqualTo(ANSWER);
        assertThat(events.getFirst().isMessageStart()).isTrue();
        assertThat(events.getLast().isMessageStop()).isTrue();
        Message finished = accumulator.message();
        assertThat(text(finished)).isEqualTo(ANSWER);
        assertThat(finished.stopReason()).contains(StopReason.END_TURN);
        assertThat(finished.usage().outputTokens()).isEqualTo(8);
    }

    @Test
    void messages_unknownModel_notFoundWithGatewayMessage() {
        assertThatThrownBy(() -> client.messages().create(message("no-such-model")))
                .isInstanceOfSatisfying(
                        NotFoundException.class,
                        e -> assertGatewayError(
                                e, 404, ErrorType.NOT_FOUND_ERROR, "No backend cluster serves the requested model."));
    }

    @Test
    void messages_onlyDrainingClusterServesModel_serviceUnavailableWithRetryAfter() {
        assertThatThrownBy(() -> client.messages().create(message(DRAINED_MODEL)))
                .isInstanceOfSatisfying(ServiceUnavailableException.class, e -> {
                    assertGatewayError(
                            e,
                            503,
                            ErrorType.OVERLOADED_ERROR,
                            "No backend cluster can take this request now; retry later.");
                    assertThat(e.headers().values("retry-after")).containsExactly("5");
                });
    }

    @Test
    void messagesStreamed_onlyDrainingClusterServesModel_serviceUnavailableBeforeAnyEvent() {
        assertThatThrownBy(() -> {
                    try (StreamResponse<RawMessageStreamEvent> stream =
                            client.messages().createStreaming(message(DRAINED_MODEL))) {
                        stream.stream().forEach(event -> {});
                    }
                })
                .isInstanceOfSatisfying(
                        ServiceUnavailableException.class,
                        e -> assertGatewayError(
                                e,
                                503,
                                ErrorType.OVERLOADED_ERROR,
                                "No backend cluster can take this request now; retry later."));
    }

    private static void assertGatewayError(AnthropicServiceException e, int status, ErrorType type, String message) {
        assertThat(e.statusCode()).isEqualTo(status);
        assertThat(e.errorType()).contains(type);
        assertThat(e.apiMessage()).contains(message);
        assertThat(e).hasMessageContaining(message);
    }
}

package grid.gateway.app.docs;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.endpoint.ErrorShape;
import grid.gateway.app.http.ApiError;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.StringReader;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The table of the gateway's own error answers (docs/failure-behaviour.md) lists exactly the status, OpenAI code and
 * type, and Anthropic type of every answer the gateway can give itself: clients and outside tests match on these.
 */
class ErrorAnswersDocumentedTest {
    private static final String PAGE = "docs/failure-behaviour.md";

    @Test
    void table_listsExactlyTheGatewaysErrorAnswers() {
        Set<String> documented = new TreeSet<>();
        for (List<String> row : RepoDocs.tablesByHeading(RepoDocs.docSection(PAGE, "The gateway's own error answers"))
                .getOrDefault("", List.of())) {
            documented.add(String.join(
                    " ",
                    row.get(0),
                    RepoDocs.unquote(row.get(1)),
                    RepoDocs.unquote(row.get(2)),
                    RepoDocs.unquote(row.get(3))));
        }
        Set<String> answered = new TreeSet<>();
        for (ApiError error : ApiError.values()) {
            answered.add(row(error));
        }

        assertThat(documented).as(PAGE + " error table vs ApiError").isEqualTo(answered);
    }

    @Test
    void row_readsTheStatusCodeAndTypesOfBothShapes() {
        assertThat(row(ApiError.BODY_TOO_LARGE))
                .isEqualTo("413 request_too_large invalid_request_error request_too_large");
        assertThat(row(ApiError.PINNED_UNAVAILABLE)).isEqualTo("503 unavailable server_error overloaded_error");
    }

    /** "status code openai-type anthropic-type", as the table's first four cells read. */
    private static String row(ApiError error) {
        JsonObject openAi = json(error.body(ErrorShape.OPENAI)).getJsonObject("error");
        JsonObject anthropic = json(error.body(ErrorShape.ANTHROPIC)).getJsonObject("error");
        return String.join(
                " ",
                Integer.toString(error.status()),
                openAi.getString("code"),
                openAi.getString("type"),
                anthropic.getString("type"));
    }

    private static JsonObject json(String text) {
        try (JsonReader reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }
}

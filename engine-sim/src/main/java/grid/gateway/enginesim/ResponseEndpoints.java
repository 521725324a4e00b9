package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

/**
 * The stored-response paths (docs/design.md §A4.4): {@code GET /v1/responses/{id}}, {@code DELETE} of the same (only
 * when the {@link ApiSurface} adds it: vLLM answers 405), {@code POST …/cancel} and {@code GET …/input_items}. An unknown id answers vLLM's 404
 * ({@code Response with id '…' not found.}); cancelling a response that already finished answers vLLM's 400.
 *
 * <p>Thread-safe: state lives in the store.
 */
final class ResponseEndpoints {
    private final ResponseStore responses;
    private final InFlight inFlight;

    ResponseEndpoints(ResponseStore responses, InFlight inFlight) {
        this.responses = requireNonNull(responses, "responses");
        this.inFlight = requireNonNull(inFlight, "inFlight");
    }

    void retrieve(Exchange exchange, String id) {
        exchange.answer(200, responses.json(id));
    }

    void delete(Exchange exchange, String id) {
        if (responses.remove(id).isEmpty()) {
            throw RequestRejected.notFound("Response with id '" + id + "' not found.", "response_id");
        }
        inFlight.interrupt(id);
        exchange.answer(
                200,
                JsonText.object()
                        .add("id", id)
                        .add("object", "response")
                        .add("deleted", true)
                        .build());
    }

    void cancel(Exchange exchange, String id) {
        StoredResponse cancelled = responses.cancel(id);
        inFlight.interrupt(id);
        exchange.answer(200, cancelled.response());
    }

    void inputItems(Exchange exchange, String id) {
        exchange.answer(200, Items.page(responses.require(id, "response_id").input(), exchange));
    }
}

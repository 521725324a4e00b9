package grid.gateway.app.endpoint;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.keyer.ApiDialect;
import io.helidon.http.Method;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * One row of the {@link EndpointTable}: everything the request flow needs to know about an API path. A row is built
 * with {@link #at} and the methods below it, each of which returns a new row.
 *
 * <p>Thread-safe (immutable).
 *
 * @param path the row's path: literal segments and placeholders; {@code {response_id}} and {@code {conversation_id}}
 *     hold the stored id the request is pinned by, any other placeholder (such as {@code {item_id}}) any one segment
 * @param methods the methods the path defines; any other answers 405 with {@code Allow}
 * @param handling what the gateway does with a request whose method is allowed
 * @param keyedAs the API whose body the prompt keyer reads; empty: routed on load alone
 * @param idsInBody whether the body's Responses fields ({@code previous_response_id}, {@code conversation}) may
 *     name stored ids, read by a strict scanner (a body it cannot read answers 400)
 * @param prefills whether the engine computes the prompt's KV (not for calls that only count tokens, nor for calls on
 *     stored objects), so that the answer teaches the prefix memory and its usage is read
 * @param tagsAnswers whether stored ids in the answers are tagged with the cluster that holds them
 * @param errors the shape of the gateway's own error answers
 */
public record Endpoint(
        String path,
        List<Method> methods,
        Handling handling,
        Optional<ApiDialect> keyedAs,
        boolean idsInBody,
        boolean prefills,
        boolean tagsAnswers,
        ErrorShape errors) {
    public Endpoint {
        requireNonNull(path, "path");
        methods = List.copyOf(methods);
        requireNonNull(handling, "handling");
        requireNonNull(keyedAs, "keyedAs");
        requireNonNull(errors, "errors");
        if (methods.isEmpty()) {
            throw new IllegalArgumentException("an endpoint defines at least one method: " + path);
        }
    }

    /** What the gateway does with an allowed request. */
    public enum Handling {
        /** Forwarded: pinned by the stored ids it names, else routed on its keys (or on load). */
        FORWARD,
        /** Forwarded to the least-queued admitted cluster of the local site first: a new conversation. */
        NEW_CONVERSATION,
        /** Answered by the gateway itself from the grid: the model list. */
        MODEL_LIST
    }

    /**
     * A row at {@code path} defining {@code methods} ({@code POST} when none are given): forwarded, unkeyed,
     * prefilling, untagged, with OpenAI-shaped errors.
     */
    public static Endpoint at(String path, Method... methods) {
        List<Method> defined = methods.length == 0 ? List.of(Method.POST) : List.of(methods);
        return new Endpoint(path, defined, Handling.FORWARD, Optional.empty(), false, true, false, ErrorShape.OPENAI);
    }

    /** This row with its body keyed as {@code dialect}. */
    public Endpoint keyed(ApiDialect dialect) {
        return new Endpoint(path, methods, handling, Optional.of(dialect), idsInBody, prefills, tagsAnswers, errors);
    }

    /** This row with stored ids read from the Responses body fields. */
    public Endpoint namingIdsInBody() {
        return new Endpoint(path, methods, handling, keyedAs, true, prefills, tagsAnswers, errors);
    }

    /** This row as a call that only counts tokens: its answers confirm and drop nothing. */
    public Endpoint countingOnly() {
        return new Endpoint(path, methods, handling, keyedAs, idsInBody, false, tagsAnswers, errors);
    }

    /**
     * This row as a call on a stored object (read, update, delete, cancel): the engine computes no prompt for it, so
     * its answers confirm, drop and report nothing. A stored response read back carries the usage of the request that
     * made it, which is not this request's.
     */
    public Endpoint onStoredObject() {
        return new Endpoint(path, methods, handling, keyedAs, idsInBody, false, tagsAnswers, errors);
    }

    /** This row with the stored ids of its answers tagged. */
    public Endpoint tagged() {
        return new Endpoint(path, methods, handling, keyedAs, idsInBody, prefills, true, errors);
    }

    /** This row with Anthropic-shaped errors. */
    public Endpoint anthropicErrors() {
        return new Endpoint(path, methods, handling, keyedAs, idsInBody, prefills, tagsAnswers, ErrorShape.ANTHROPIC);
    }

    /** This row handled as {@code how}. */
    public Endpoint handled(Handling how) {
        return new Endpoint(path, methods, how, keyedAs, idsInBody, prefills, tagsAnswers, errors);
    }

    /** Whether {@code method} is defined on this path. */
    public boolean allows(Method method) {
        return methods.contains(method);
    }

    /** The {@code Allow} header value of a 405. */
    public String allowHeader() {
        return methods.stream().map(Method::text).collect(Collectors.joining(", "));
    }
}

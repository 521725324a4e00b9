package grid.gateway.app.http;

import static grid.gateway.app.http.ClientRequests.Close.MAY;
import static grid.gateway.app.http.ClientRequests.Close.MUST;
import static grid.gateway.app.http.ClientRequests.Close.NEVER;

import grid.gateway.app.http.ClientRequests.Close;
import grid.gateway.app.http.ClientRequests.Expect;
import grid.gateway.app.rewrite.Hostile;
import java.util.List;
import java.util.SplittableRandom;
import org.jspecify.annotations.Nullable;

/**
 * Test fixture: one generated oddity of a client request for {@link ClientRequestsPropertyTest}, with what the
 * gateway must do with it (docs/failure-behaviour.md, "Inbound framing and limits", and docs/decisions.md where RFC
 * 9110/9112 leave a choice): in the request line (methods, absolute form, asterisk, fragment, encoded slashes and
 * dots, an over-long target, HTTP/1.0, the HTTP/2 preface, a lower-case version), in the fields (obs-fold, NUL, CR or
 * LF alone, a space before the colon, Host missing, twice or conflicting, odd and repeated {@code Content-Length} and
 * {@code Transfer-Encoding}, {@code Expect: 100-continue}, a huge field, many fields, obs-text, an empty name), in the
 * body's framing (chunk extensions, trailers, bad chunk sizes, data longer than its chunk) and in the body (JSON or
 * UTF-8 broken).
 */
final class RequestOddities {
    /** What an oddity did: its name, what the gateway must do, and the body the engine gets (null: the draft's). */
    record Applied(String name, Expect expect, @Nullable String engineBody) {}

    private interface Oddity {
        @Nullable
        Applied apply(SplittableRandom random, RequestDraft draft, ClientRoute route);
    }

    private static final List<Oddity> REQUEST_LINE = List.of(
            RequestOddities::lowerMethod,
            RequestOddities::unknownMethod,
            RequestOddities::absoluteForm,
            RequestOddities::asterisk,
            RequestOddities::fragment,
            RequestOddities::encodedSlash,
            RequestOddities::dotSegment,
            RequestOddities::longTarget,
            RequestOddities::http10,
            RequestOddities::http2Preface,
            RequestOddities::lowerVersion);

    private static final List<Oddity> FIELDS = List.of(
            (r, d, route) -> badLine(d, "obs-fold", "X-Folded: a\r\n  folded"),
            (r, d, route) -> badLine(d, "NUL", "X-Odd: a\0b"),
            (r, d, route) -> badLine(d, "CR alone", "X-Odd: a\rb"),
            (r, d, route) -> badLine(d, "space before colon", r.nextBoolean() ? "X-Odd : v" : "Host : gw"),
            (r, d, route) -> badLine(d, "DEL", "X-Odd: a\u007fb"),
            RequestOddities::lfAlone,
            RequestOddities::hosts,
            RequestOddities::obsText,
            RequestOddities::emptyName,
            RequestOddities::hugeField,
            RequestOddities::manyFields,
            RequestOddities::expectContinue,
            RequestOddities::contentEncoding);

    private static final List<Oddity> FRAMING = List.of(
            FramingOddities::contentLength,
            FramingOddities::transferEncoding,
            FramingOddities::chunkExtension,
            FramingOddities::trailer,
            FramingOddities::chunkSize,
            FramingOddities::chunkOverrun,
            RequestOddities::brokenJson,
            RequestOddities::brokenUtf8);

    private RequestOddities() {}

    /** Applies one oddity that fits {@code draft} to it. */
    static Applied apply(SplittableRandom random, RequestDraft draft, ClientRoute route) {
        while (true) {
            List<Oddity> family = switch (random.nextInt(3)) {
                case 0 -> REQUEST_LINE;
                case 1 -> FIELDS;
                default -> FRAMING;
            };
            Applied applied = family.get(random.nextInt(family.size())).apply(random, draft, route);
            if (applied != null) {
                return applied;
            }
        }
    }

    /** Whether a refusal given before the body is read closes: only when a body follows the head. */
    static Close unread(RequestDraft draft) {
        return draft.hasBody() ? MUST : NEVER;
    }

    static Applied refused(String name, Close close, Integer... statuses) {
        return new Applied(name, Expect.refused(close, statuses), null);
    }

    private static Applied lowerMethod(SplittableRandom random, RequestDraft draft, ClientRoute route) {
        draft.method = random.nextBoolean()
                ? ClientRequests.lower(draft.method)
                : draft.method.charAt(0) + ClientRequests.lower(draft.method.substring(1));
        return refused("method " + draft.method, unread(draft), 501);
    }

    private static Applied unknownMethod(SplittableRandom random, RequestDraft draft, ClientRoute route) {
        draft.method = List.of("FOO", "PATCH", "TRACE", "PUT", "CONNECT-X").get(random.nextInt(5));
        return refused("method " + draft.method, unread(draft), 405);
    }

    private static Applied absoluteForm(SplittableRandom random, RequestDraft draft, ClientRoute route) {
        draft.target = (random.nextBoolean() ? "http://gw" : "https://other.example:8443") + draft.target;
        // Read as its origin form, the target's authority whatever it is (RFC 9112 §3.2.2; docs/decisions.md).
        return new Applied("absolute form", Expect.FORWARDED, null);
    }

    private static Applied asterisk(SplittableRandom random, RequestDraft draft, ClientRoute route) {
        draft.method = random.nextBoolean() ? "OPTIONS" : draft.method;
        draft.target = "*";
        return refused("asterisk", MAY, 400, 404, 405);
    }

    private static Applied fragment(SplittableRandom random, RequestDraft draft, ClientRoute route) {
        draft.target = draft.target + "#frag";
        return new Applied("fragment", Expect.either(MAY, 400, 404), null);
    }

    private static Applied encodedSlash(SplittableRandom random, RequestDraft draft, ClientRoute route) {
        int slash = draft.target.lastIndexOf('/');
        draft.target = draft.target.substring(0, slash)
                + (random.nextBoolean() ? "%2F" : "%2f")
                + draft.target.substring(slash + 1);
        return refused("encoded slash", unread(draft), 404);
    }

    private static Applied dotSegment(SplittableRandom random, RequestDraft draft, ClientRoute route) {
        String dots =
                List.of("/x/..", "/.", "/%2e%2e/v1", "/x/%2E%2E", "/x/.%2e").get(random.nextInt(5));
        draft.target = "/v1" + dots + draft.target.substring(3);
        return refused("dot segment", MAY, 400, 404);
    }

    private static Applied longTarget(SplittableRandom random, RequestDraft draft, ClientRoute route) {
        draft.target = draft.target + "?q=" + "a".repeat(4100 + random.nextInt(2000));
        return refused("long target", MUST, 414);
    }

    private static Applied http10(SplittableRandom random, RequestDraft draft, ClientRoute route) {
        draft.version = "HTTP/1.0";
        if (random.nextBoolean()) {
            draft.field("Connection: keep-alive");
        }
        return refused("HTTP/1.0", MUST, 505);
    }

    private static Applied http2Preface(SplittableRandom random, RequestDraft draft, ClientRoute route) {
        draft.raw = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + (random.nextBoolean() ? "\0\0\0\4\0\0\0\0\0" : "");
        return refused("HTTP/2 preface", MUST, 400);
    }

    private static Applied lowerVersion(SplittableRandom random, RequestDraft draft, ClientRoute route) {
        draft.version = List.of("http/1.1", "HTTP/1.2", "HTTP/2.0", "HTTP/1.1 ", "HTTP/01.1")
                .get(random.nextInt(5));
        return refused("version " + draft.version, MUST, 400, 505);
    }

    /** A field line the parser must refuse, placed anywhere among the fields. */
    private static Applied badLine(RequestDraft draft, String name, String line) {
        int at = draft.fields.size() == 0 ? 0 : new SplittableRandom(line.hashCode()).nextInt(draft.fields.size());
        draft.fields.add(at, line);
        draft.lineEnds.add(at, "\r\n");
        return refused(name, MUST, 400);
    }

    private static Applied lfAlone(SplittableRandom random, RequestDraft draft, ClientRoute route) {
        draft.lineEnds.set(random.nextInt(draft.lineEnds.size()), "\n");
        return refused("LF alone", MUST, 400);
    }

    private static Applied hosts(SplittableRandom random, RequestDraft draft, ClientRoute route) {
        return switch (random.nextInt(3)) {
            case 0 -> {
                draft.field("Host: gw");
                yield refused("Host twice", MUST, 400);
            }
            case 1 -> {
                draft.field("Host: other.example");
                yield refused("Host conflicting", MUST, 400);
            }
            default -> {
                draft.remove("Host");
                yield refused("no Host", MUST, 400);
            }
        };
    }

    private static Applied obsText(SplittableRandom random, RequestDraft draft, ClientRoute route) {
        draft.field("X-Odd: caf\u00e9");
        return new Applied("obs-text", Expect.refused(draft.hasBody() ? MUST : MAY, 400), null);
    }

    private static Applied emptyName(SplittableRandom random, RequestDraft draft, ClientRoute route) {
        draft.field(": v");
        return new Applied("empty name", Expect.refused(draft.hasBody() ? MUST : MAY, 400), null);
    }

    private static Applied hugeField(SplittableRandom random, RequestDraft draft, ClientRoute route) {
        draft.field("X-Big: " + "b".repeat(17_000 + random.nextInt(4000)));
        return refused("huge field", MUST, 400, 431);
    }

    private static @Nullable Applied manyFields(SplittableRandom random, RequestDraft draft, ClientRoute route) {
        int many = 100 + random.nextInt(400);
        for (int i = 0; i < many; i++) {
            draft.field("X-F" + i + ": v");
        }
        return new Applied(many + " fields", Expect.either(MUST, 400, 431), null);
    }

    private static @Nullable Applied expectContinue(SplittableRandom random, RequestDraft draft, ClientRoute route) {
        if (!draft.hasBody()) {
            return null;
        }
        draft.field(random.nextBoolean() ? "Expect: 100-continue" : "expect: 100-Continue");
        return new Applied("100-continue, body sent at once", Expect.FORWARDED, null);
    }

    private static @Nullable Applied contentEncoding(SplittableRandom random, RequestDraft draft, ClientRoute route) {
        if (!draft.hasBody()) {
            return null;
        }
        draft.field("Content-Encoding: " + (random.nextBoolean() ? "gzip" : "deflate"));
        return refused("Content-Encoding", MUST, 400, 415);
    }

    /** The JSON broken by a few bytes: a body a strict route reads may be refused, any other is forwarded as sent. */
    private static @Nullable Applied brokenJson(SplittableRandom random, RequestDraft draft, ClientRoute route) {
        if (!draft.hasBody() || route == ClientRoute.RESPONSES_PINNED) {
            return null;
        }
        byte[] mutated = Hostile.mutate(ClientRequests.bytes(draft.body), random, ClientRequests.bytes("{}[]\",:\\ "));
        return rebody(draft, route, "broken JSON", new String(mutated, java.nio.charset.StandardCharsets.ISO_8859_1));
    }

    private static @Nullable Applied brokenUtf8(SplittableRandom random, RequestDraft draft, ClientRoute route) {
        if (!draft.hasBody() || route == ClientRoute.RESPONSES_PINNED) {
            return null;
        }
        String bad = List.of("\u00ff", "\u00c3\u0028", "\u00ed\u00a0\u0080", "\u00f0\u0090\u0080", "\u00c0\u00af")
                .get(random.nextInt(5));
        int at = draft.body.lastIndexOf('"');
        return rebody(draft, route, "broken UTF-8", draft.body.substring(0, at) + bad + draft.body.substring(at));
    }

    /** The draft with {@code body} (framed as it was): forwarded as sent, or on a strict route maybe refused. */
    private static Applied rebody(RequestDraft draft, ClientRoute route, String name, String body) {
        FramingOddities.rebody(draft, body);
        Expect expect = route.kind() == ClientRoute.Kind.STRICT ? Expect.either(NEVER, 400) : Expect.FORWARDED;
        return new Applied(name, expect, body);
    }
}

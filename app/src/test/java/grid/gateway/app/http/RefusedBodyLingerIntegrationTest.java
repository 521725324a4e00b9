package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongPredicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client still sending a body the gateway refused reads the whole refusal (reliability A7, A8): the gateway drains
 * what keeps coming (lingering close) before it closes, by every path a body is refused while the client sends it.
 * Without the drain the gateway closes with unread bytes, the kernel resets, and the client's write of the rest
 * fails (as here: 16 MiB sent in one write, more than the loopback socket buffers hold) or its read of the answer
 * does. The variants where the refusal is decided at a chunk's size line end the connection's bytes for Helidon's
 * reader ({@link RequestLineKeeper}), so the drain cannot read through the request's entity stream there.
 */
class RefusedBodyLingerIntegrationTest {
    private static final int SIXTEEN_MIB = 16 * 1024 * 1024;

    @TempDir
    Path dir;

    private static String head(String headers) {
        return "POST /v1/chat/completions HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\n" + headers
                + "\r\n";
    }

    /** A chunk announced as 16 MiB and all of it, then the body's end. */
    private static String sixteenMibChunk() {
        return Integer.toHexString(SIXTEEN_MIB) + "\r\n" + "a".repeat(SIXTEEN_MIB) + "\r\n0\r\n\r\n";
    }

    /** Sends {@code request} in one write and asserts the client wrote it whole and then read {@code status}. */
    private static void sentWholeThenRead(int port, String request, int status) {
        try (RawHttp client = new RawHttp(port)) {
            boolean written = client.trySend(request.getBytes(StandardCharsets.ISO_8859_1));
            RawHttp.Reply reply = client.readResponses(1);
            assertThat(written).as("the whole request written, no reset").isTrue();
            assertThat(reply.status()).as(reply.text()).isEqualTo(status);
            assertThat(reply.body()).startsWith("{\"error\":{");
            assertThat(reply.closed() || client.closedWithin(5_000)).isTrue();
        }
    }

    @Test
    void chunkAnnouncedOverTheCap_clientStillSendingIt_readsTheWhole413() {
        try (ScriptedUpstream engine = new ScriptedUpstream();
                GatewayHarness gateway =
                        new GatewayHarness(dir, GatewayHarness.config("", GatewayHarness.oneEngine(engine.url())))) {
            sentWholeThenRead(gateway.server.port(), head("Transfer-Encoding: chunked\r\n") + sixteenMibChunk(), 413);
            assertThat(engine.connections()).isZero();
        }
    }

    @Test
    void capCrossedMidChunk_thenAChunkAnnouncedOverTheCap_clientStillSending_readsTheWhole413() {
        // The cap (4,096) is crossed inside the fifth chunk; the drain reads on through the entity stream and meets
        // a chunk whose size line alone is over the cap.
        String small = "3e8\r\n" + "a".repeat(1_000) + "\r\n";
        try (ScriptedUpstream engine = new ScriptedUpstream();
                GatewayHarness gateway =
                        new GatewayHarness(dir, GatewayHarness.config("", GatewayHarness.oneEngine(engine.url())))) {
            sentWholeThenRead(
                    gateway.server.port(),
                    head("Transfer-Encoding: chunked\r\n") + small.repeat(5) + sixteenMibChunk(),
                    413);
            assertThat(engine.connections()).isZero();
        }
    }

    @Test
    void chunkAnnouncedOverTheCapToTheAdminExplain_clientStillSendingIt_readsTheWhole413() {
        try (ScriptedUpstream engine = new ScriptedUpstream();
                GatewayHarness gateway = new GatewayHarness(
                        dir,
                        GatewayHarness.config(
                                GatewayHarness.routeExplain(dir), "", GatewayHarness.oneEngine(engine.url())))) {
            try (RawHttp client = new RawHttp(gateway.server.adminPort())) {
                boolean written = client.trySend(("POST /route/explain?path=/v1/chat/completions HTTP/1.1\r\n"
                                + "Host: gw\r\nAuthorization: Bearer " + GatewayHarness.EXPLAIN_TOKEN + "\r\n"
                                + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                                + sixteenMibChunk())
                        .getBytes(StandardCharsets.ISO_8859_1));
                RawHttp.Reply reply = client.readResponses(1);
                assertThat(written).as("the whole request written, no reset").isTrue();
                assertThat(reply.status()).as(reply.text()).isEqualTo(413);
            }
        }
    }

    @Test
    void chunkAnnouncedOverTheCapWithAMethodTheAdminPageRefuses_clientStillSendingIt_readsTheWhole405() {
        // Refused before its body is read at all: the drain meets the chunk's size line, which ends the connection's
        // bytes for the reader, and goes on from the socket.
        try (ScriptedUpstream engine = new ScriptedUpstream();
                GatewayHarness gateway =
                        new GatewayHarness(dir, GatewayHarness.config("", GatewayHarness.oneEngine(engine.url())))) {
            try (RawHttp client = new RawHttp(gateway.server.adminPort())) {
                boolean written = client.trySend(
                        ("PUT /metrics HTTP/1.1\r\nHost: gw\r\nTransfer-Encoding: chunked\r\n\r\n" + sixteenMibChunk())
                                .getBytes(StandardCharsets.ISO_8859_1));
                RawHttp.Reply reply = client.readResponses(1);
                assertThat(written).as("the whole request written, no reset").isTrue();
                assertThat(reply.status()).as(reply.text()).isEqualTo(405);
            }
        }
    }

    @Test
    void chunkAnnouncedOverTheCapWithAMethodTheRouteRefuses_clientStillSendingIt_readsTheWhole405() {
        try (ScriptedUpstream engine = new ScriptedUpstream();
                GatewayHarness gateway =
                        new GatewayHarness(dir, GatewayHarness.config("", GatewayHarness.oneEngine(engine.url())))) {
            sentWholeThenRead(
                    gateway.server.port(),
                    head("Transfer-Encoding: chunked\r\n").replace("POST ", "PUT ") + sixteenMibChunk(),
                    405);
            assertThat(engine.connections()).isZero();
        }
    }

    @Test
    void chunkTheBudgetHasNoRoomFor_clientStillSendingIt_readsTheWhole503() throws Exception {
        // The cap is 17 MiB and so is the budget; a body held part-read takes 2 MiB of it, so a 16 MiB chunk (under
        // the cap) is refused at its size line for the budget.
        long cap = 17L * 1024 * 1024;
        String server = "  max_body_bytes: " + cap + "\n  max_inflight_body_bytes: " + cap + "\n";
        try (ScriptedUpstream engine = new ScriptedUpstream();
                GatewayHarness gateway = new GatewayHarness(
                        dir,
                        GatewayHarness.config("", GatewayHarness.oneEngine(engine.url()))
                                .replace("  max_body_bytes: 4096\n", server));
                RawHttp holder = new RawHttp(gateway.server.port())) {
            holder.send(head("Content-Length: " + cap + "\r\n") + "a".repeat(1024 * 1024 + 1));
            awaitGauge(gateway, held -> held >= 2L * 1024 * 1024);
            sentWholeThenRead(gateway.server.port(), head("Transfer-Encoding: chunked\r\n") + sixteenMibChunk(), 503);
            assertThat(engine.connections()).isZero();
        }
    }

    /** Waits (bounded) until the body-bytes gauge satisfies {@code condition}. */
    private static void awaitGauge(GatewayHarness gateway, LongPredicate condition) {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (System.nanoTime() < deadline) {
            long value = gateway.metrics()
                    .lines()
                    .filter(l -> l.startsWith("grid_inflight_body_bytes"))
                    .mapToLong(l -> (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                    .findFirst()
                    .orElseThrow();
            if (condition.test(value)) {
                return;
            }
            // A scrape a millisecond, not back to back: each one is work for the gateway being waited on.
            LockSupport.parkNanos(1_000_000L);
        }
        throw new AssertionError("the body-bytes gauge never reached the condition");
    }
}

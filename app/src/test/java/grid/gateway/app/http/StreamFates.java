package grid.gateway.app.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Test fixture for {@link StreamingClientFatesPropertyTest}: what a client does while its streamed answer comes back,
 * the four streaming APIs' requests and event streams, and a reader of answers off a raw socket.
 */
final class StreamFates {
    private StreamFates() {}

    /** What the client does once it has read {@link Trial#at} bytes of its answer (or its first batch of events). */
    enum Fate {
        /** Reads on, in reads of a generated size, to the end. */
        READ_ALL(false),
        /** Reads the whole answer one byte per read call. */
        BYTE_AT_A_TIME(false),
        /** Takes nothing for longer than the idle and first-byte timeouts, then reads on to the end. */
        PAUSE(false),
        /** Half-closes its sending side (a FIN) and reads on to the end. */
        HALF_CLOSE(false),
        /** Pipelines a second (plain) request behind the first and reads both answers. */
        PIPELINE(false),
        /** Sends junk bytes (ending in a blank line) after its request and reads the answer, then what the junk gets. */
        JUNK(false),
        /** Resets the connection (linger 0). */
        RESET(true),
        /** Closes the connection (a FIN; a reset when bytes it did not read are left). */
        CLOSE(true),
        /** Reads until the last event has come and closes, before or while its terminating chunk comes. */
        CLOSE_AT_LAST(true);

        /** Whether the client leaves before it has read its whole answer. */
        final boolean leaves;

        Fate(boolean leaves) {
            this.leaves = leaves;
        }
    }

    /**
     * One request: {@code first} events the engine writes at once, {@code rest} it writes once the client acted, the
     * byte {@code at} of its answer where the client acts, the size of its reads, the junk it sends.
     */
    record Trial(int n, Fate fate, Fates.Api api, int first, int rest, int at, int readSize, String junk) {
        String nonce() {
            return "sq" + n + "sq";
        }

        String requestId() {
            return "stream-" + n;
        }

        int events() {
            return first + rest;
        }

        @Override
        public String toString() {
            return requestId() + " " + fate + " " + api + " first " + first + " rest " + rest + " at " + at + " reads "
                    + readSize + (junk.isEmpty() ? "" : " junk " + junk.length() + " bytes");
        }
    }

    static Trial generate(SplittableRandom random, int n) {
        Fate fate = Fate.values()[random.nextInt(Fate.values().length)];
        Fates.Api api = Fates.Api.values()[random.nextInt(Fates.Api.values().length)];
        int first = 1 + random.nextInt(6);
        int rest = fate == Fate.CLOSE_AT_LAST ? 0 : 4 + random.nextInt(12);
        // Acting before any byte of the answer is a fate of its own (the disconnect probe's), and a half-closing
        // client is answered only once bytes of its answer are on their way (docs/failure-behaviour.md).
        int at = fate == Fate.HALF_CLOSE ? 1 + random.nextInt(400) : random.nextInt(400);
        int readSize = fate == Fate.BYTE_AT_A_TIME ? 1 : 1 + random.nextInt(700);
        return new Trial(n, fate, api, first, rest, at, readSize, fate == Fate.JUNK ? junk(random) : "");
    }

    /** Bytes no parser takes for a request: one that is not a line end first, then anything, then a blank line. */
    private static String junk(SplittableRandom random) {
        String alphabet = "GETPOST /HTTP1.0:;x\u0000\u007f\u00ff\t\r\n";
        StringBuilder junk = new StringBuilder().append("!~{\u0001".charAt(random.nextInt(4)));
        int length = random.nextInt(40);
        for (int i = 0; i < length; i++) {
            junk.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return junk.append("\r\n\r\n").toString();
    }

    /** The streamed request of {@code trial}. */
    static String request(Trial trial) {
        String text = "who-" + trial.nonce();
        String body = switch (trial.api()) {
            case CHAT ->
                "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"" + text
                        + "\"}],\"stream\":true}";
            case COMPLETIONS -> "{\"model\":\"demo-model\",\"prompt\":\"" + text + "\",\"stream\":true}";
            case MESSAGES ->
                "{\"model\":\"demo-model\",\"max_tokens\":9,\"messages\":[{\"role\":\"user\",\"content\":\"" + text
                        + "\"}],\"stream\":true}";
            case RESPONSES -> "{\"model\":\"demo-model\",\"input\":\"" + text + "\",\"stream\":true}";
        };
        return post(trial.api().path, trial.requestId(), body);
    }

    /** The plain request a {@link Fate#PIPELINE} client sends behind its stream. */
    static String pipelined(Trial trial) {
        return post(
                "/v1/completions",
                trial.requestId() + "-p",
                "{\"model\":\"demo-model\",\"prompt\":\"who-" + trial.nonce() + "p\"}");
    }

    private static String post(String path, String id, String body) {
        return "POST " + path + " HTTP/1.1\r\nHost: gw\r\nX-Request-Id: " + id
                + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body;
    }

    /** Event {@code i} of {@code trial}'s stream as the engine writes it (one chunk); its text ends {@code "n":i}}. */
    static String event(Trial trial, int i) {
        String data = switch (trial.api()) {
            case CHAT, COMPLETIONS -> "data: {\"id\":\"cmpl-" + trial.nonce() + "\",\"n\":" + i + "}\n\n";
            case MESSAGES -> "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"n\":" + i + "}\n\n";
            case RESPONSES ->
                "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"response\":"
                        + "{\"id\":\"resp_" + trial.nonce() + "\"},\"n\":" + i + "}\n\n";
        };
        return UpstreamFaultsIntegrationTest.chunk(data);
    }

    /** The last event of {@code trial}'s stream and the terminating chunk. */
    static String last(Trial trial) {
        String data = switch (trial.api()) {
            case CHAT, COMPLETIONS -> "data: [DONE]\n\n";
            case MESSAGES -> "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
            case RESPONSES ->
                "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_"
                        + trial.nonce() + "\",\"status\":\"completed\"}}\n\n";
        };
        return UpstreamFaultsIntegrationTest.chunk(data) + "0\r\n\r\n";
    }

    /** The text that ends the last event as the client reads it. */
    static String lastEventEnd(Trial trial) {
        return switch (trial.api()) {
            case CHAT, COMPLETIONS -> "data: [DONE]\n\n";
            case MESSAGES -> "\"message_stop\"}\n\n";
            case RESPONSES -> "\"status\":\"completed\"}}\n\n";
        };
    }

    /** An answer as a client read it: its status (-1: none), head, body (chunks decoded) and whether it was whole. */
    record Answer(int status, String head, String body, boolean complete) {}

    /** Reads one answer from {@code in}, as far as it comes; never throws for a connection that ends or resets. */
    static Answer read(InputStream in) {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        try {
            int b;
            while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n") && (b = in.read()) >= 0) {
                head.write(b);
            }
            String text = head.toString(StandardCharsets.ISO_8859_1);
            if (!text.endsWith("\r\n\r\n")) {
                return new Answer(text.length() >= 12 ? Integer.parseInt(text.substring(9, 12)) : -1, text, "", false);
            }
            int status = Integer.parseInt(text.substring(9, 12));
            String lower = text.toLowerCase(Locale.ROOT);
            boolean complete;
            int at = lower.indexOf("\r\ncontent-length:");
            if (lower.contains("\r\ntransfer-encoding: chunked")) {
                complete = chunks(in, body);
            } else if (at < 0) {
                body.write(in.readAllBytes());
                complete = false;
            } else {
                int length = Integer.parseInt(
                        lower.substring(at + 17, lower.indexOf("\r\n", at + 17)).trim());
                byte[] bytes = in.readNBytes(length);
                body.write(bytes);
                complete = bytes.length == length;
            }
            return new Answer(status, text, body.toString(StandardCharsets.UTF_8), complete);
        } catch (IOException | RuntimeException e) {
            String text = head.toString(StandardCharsets.ISO_8859_1);
            int status = text.length() >= 12 ? Integer.parseInt(text.substring(9, 12)) : -1;
            return new Answer(status, text, body.toString(StandardCharsets.UTF_8), false);
        }
    }

    private static boolean chunks(InputStream in, ByteArrayOutputStream body) throws IOException {
        while (true) {
            String size = WireLines.line(in);
            if (size == null) {
                return false;
            }
            int length = Integer.parseInt(size, 16);
            if (length == 0) {
                return "".equals(WireLines.line(in));
            }
            byte[] data = in.readNBytes(length);
            body.write(data);
            if (data.length < length || !"".equals(WireLines.line(in))) {
                return false;
            }
        }
    }
}

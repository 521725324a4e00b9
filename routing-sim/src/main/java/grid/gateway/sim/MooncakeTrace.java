package grid.gateway.sim;

import grid.gateway.routing.keyer.ApiDialect;
import grid.gateway.routing.keyer.PromptKeyer;
import grid.gateway.routing.keyer.PromptKeys;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonException;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads a trace in the Mooncake format (FAST'25 trace release) into a replayable {@link Trace}: one JSON object a
 * line with {@code timestamp} (ms from the start), {@code input_length} and {@code output_length} (tokens) and
 * {@code hash_ids} (the prompt as 512-token blocks; equal leading ids mean a shared prefix). Other fields are
 * ignored, so other traces of this shape replay too; a missing or mistyped field fails the read with its line.
 *
 * <p>Each request becomes a one-turn session arriving at its timestamp; a run keeps the trace's arrival pattern and
 * scales its rate to the offered load (a session's start is its timestamp in units of the trace's mean gap).
 *
 * <p>The prompt the gateway keys: each block id gets a fixed text of 2,048 bytes (512 tokens of four bytes, derived
 * from the id alone), the request's blocks are concatenated and the last cut to what {@code input_length} leaves,
 * and the text is the one user message of a Chat Completions body keyed by the real {@link PromptKeyer}. The engine's
 * tokens: token {@code j} of block {@code id} is a pseudo-token of (id, j), chained into 16-token block hashes as
 * {@link EngineBlocks} does, so both agree exactly where the trace says prompts share a prefix. The answer's tokens
 * are unique to the request.
 *
 * <p>Not thread-safe; one per read.
 */
public final class MooncakeTrace {
    /** Tokens a trace block. */
    public static final int BLOCK_TOKENS = 512;

    private static final long GOLDEN = 0x9E3779B97F4A7C15L;
    private static final long ANSWER = 0x5DEECE66DL;

    private final PromptKeyer keyer = new PromptKeyer();
    private final Set<Long> everSeen = new HashSet<>();

    /**
     * One line of the trace.
     *
     * @param timestampMs arrival, ms from the start
     * @param inputLength prompt tokens
     * @param outputLength answer tokens
     * @param hashIds the prompt's 512-token blocks
     */
    record Request(long timestampMs, int inputLength, int outputLength, long[] hashIds) {}

    private MooncakeTrace() {}

    /**
     * The trace in {@code file}, named {@code workload}; {@code scale} keeps its first fraction of requests (at
     * least 20, or all when fewer).
     */
    public static Trace read(Path file, String workload, double scale) {
        List<Request> requests = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            int number = 0;
            while ((line = in.readLine()) != null) {
                number++;
                if (!line.isBlank()) {
                    requests.add(parse(line, file + ":" + number));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (requests.isEmpty()) {
            throw new IllegalArgumentException(file + ": no requests");
        }
        int keep = Math.min(requests.size(), Math.max(20, (int) Math.round(requests.size() * scale)));
        return new MooncakeTrace().trace(workload, requests.subList(0, keep));
    }

    /** One line, strictly: the four fields present and of their types. */
    static Request parse(String line, String where) {
        try (JsonReader reader = Json.createReader(new StringReader(line))) {
            JsonObject o = reader.readObject();
            JsonArray ids = o.getJsonArray("hash_ids");
            if (ids == null) {
                throw new IllegalArgumentException(where + ": missing hash_ids");
            }
            long[] hashIds = new long[ids.size()];
            for (int i = 0; i < hashIds.length; i++) {
                if (!(ids.get(i) instanceof JsonNumber n) || !n.isIntegral()) {
                    throw new IllegalArgumentException(where + ": hash_ids[" + i + "] is not an integer");
                }
                hashIds[i] = n.longValueExact();
            }
            Request request = new Request(
                    number(o, "timestamp", where),
                    (int) number(o, "input_length", where),
                    (int) number(o, "output_length", where),
                    hashIds);
            if (request.inputLength() <= 0 || request.outputLength() < 0 || request.timestampMs() < 0) {
                throw new IllegalArgumentException(where + ": lengths and timestamp out of range");
            }
            return request;
        } catch (JsonException | ClassCastException | ArithmeticException e) {
            throw new IllegalArgumentException(where + ": not a Mooncake trace line: " + e.getMessage(), e);
        }
    }

    private static long number(JsonObject o, String key, String where) {
        JsonValue value = o.get(key);
        if (!(value instanceof JsonNumber n)) {
            throw new IllegalArgumentException(where + ": missing or non-numeric " + key);
        }
        return Math.round(n.doubleValue());
    }

    private Trace trace(String workload, List<Request> requests) {
        long first = requests.getFirst().timestampMs();
        long span = requests.getLast().timestampMs() - first;
        double meanGap = requests.size() > 1 ? span / (double) (requests.size() - 1) : 0;
        List<Session> sessions = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            Request r = requests.get(i);
            double start = meanGap > 0 ? (r.timestampMs() - first) / meanGap : i;
            sessions.add(new Session(start, List.of(turn(r, i))));
        }
        return new Trace(workload, sessions, true);
    }

    private Turn turn(Request r, int index) {
        PromptKeys keys = keyer.key(ApiDialect.CHAT_COMPLETIONS, body(r));
        long[] blocks = engineBlocks(r, index);
        int limit = Math.min(blocks.length, (r.inputLength() - 1) / EngineBlocks.BLOCK_TOKENS);
        int hit = 0;
        while (hit < limit && everSeen.contains(blocks[hit])) {
            hit++;
        }
        for (long block : blocks) {
            everSeen.add(block);
        }
        int ideal = r.inputLength() - hit * EngineBlocks.BLOCK_TOKENS;
        return new Turn(keys, blocks, r.inputLength(), r.outputLength(), 0, ideal);
    }

    /** The Chat Completions body of the request: one user message, the blocks' texts. */
    static byte[] body(Request r) {
        StringBuilder out = new StringBuilder(r.inputLength() * 4 + 128);
        out.append("{\"model\":\"").append(TraceGenerator.MODEL).append('"');
        out.append(",\"stream\":true,\"max_tokens\":").append(Math.max(1, r.outputLength()));
        out.append(",\"messages\":[{\"role\":\"user\",\"content\":\"");
        int left = r.inputLength();
        for (int b = 0; left > 0; b++) {
            int tokens = Math.min(BLOCK_TOKENS, left);
            appendText(out, blockId(r, b), tokens);
            left -= tokens;
        }
        return out.append("\"}]}").toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The id of the request's block {@code b}: its trace id, or, past the listed blocks (a prompt longer than its
     * ids cover), an id of its own.
     */
    private static long blockId(Request r, int b) {
        return b < r.hashIds().length ? r.hashIds()[b] : ~EngineBlocks.mix(r.timestampMs() * GOLDEN + b);
    }

    /** The first {@code tokens} tokens of block {@code id}'s text: four bytes a token (three letters and a space). */
    private static void appendText(StringBuilder out, long id, int tokens) {
        long state = EngineBlocks.mix(id * GOLDEN + 0x2545F4914F6CDD1DL);
        for (int t = 0; t < tokens; t++) {
            state = EngineBlocks.mix(state + GOLDEN);
            out.append((char) ('a' + Long.remainderUnsigned(state, 26)))
                    .append((char) ('a' + Long.remainderUnsigned(state >>> 16, 26)))
                    .append((char) ('a' + Long.remainderUnsigned(state >>> 32, 26)))
                    .append(' ');
        }
    }

    /** The engine's 16-token block hashes of the prompt followed by the answer. */
    static long[] engineBlocks(Request r, int index) {
        int total = r.inputLength() + r.outputLength();
        long[] hashes = new long[total / EngineBlocks.BLOCK_TOKENS];
        long running = EngineBlocks.mix(EngineBlocks.seed(TraceGenerator.MODEL, ""));
        long base = 0;
        for (int p = 0; p < total; p++) {
            int j = p % BLOCK_TOKENS;
            if (p < r.inputLength() && j == 0) {
                base = EngineBlocks.mix(blockId(r, p / BLOCK_TOKENS) * GOLDEN + 7);
            } else if (p == r.inputLength()) {
                base = EngineBlocks.mix((index + 1L) * ANSWER ^ r.timestampMs() * GOLDEN);
            }
            long token = p < r.inputLength() ? base + j * GOLDEN : base + (p - r.inputLength()) * GOLDEN;
            running = EngineBlocks.mix(running ^ token);
            if ((p + 1) % EngineBlocks.BLOCK_TOKENS == 0) {
                hashes[(p + 1) / EngineBlocks.BLOCK_TOKENS - 1] = running;
            }
        }
        return hashes;
    }
}

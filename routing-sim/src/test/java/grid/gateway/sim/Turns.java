package grid.gateway.sim;

import grid.gateway.routing.keyer.ApiDialect;
import grid.gateway.routing.keyer.PromptKeyer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Builds turns for engine-model tests: keys do not matter there, so every turn is unkeyed. */
final class Turns {
    private Turns() {}

    /** A turn whose prompt is {@code segments} (each a user message) and whose answer has {@code output} tokens. */
    static Turn of(List<Segment> segments, int output) {
        List<Segment> stream = new ArrayList<>(segments);
        stream.add(new Segment(-1 - segments.getLast().id(), output, Segment.Role.ASSISTANT));
        long[] blocks = EngineBlocks.hashes(EngineBlocks.seed("m", ""), stream);
        var keys = new PromptKeyer().key(ApiDialect.COMPLETIONS, "{}".getBytes(StandardCharsets.UTF_8));
        return new Turn(keys, blocks, EngineBlocks.tokens(segments), output, 0, 0);
    }

    /** A turn of one user message of {@code tokens - 1} tokens (so {@code tokens} with its role token). */
    static Turn single(long id, int tokens, int output) {
        return of(List.of(new Segment(id, tokens - 1, Segment.Role.USER)), output);
    }
}

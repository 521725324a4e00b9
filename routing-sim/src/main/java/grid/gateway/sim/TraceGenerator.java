package grid.gateway.sim;

import grid.gateway.routing.keyer.ApiDialect;
import grid.gateway.routing.keyer.PromptKeyer;
import grid.gateway.routing.keyer.PromptKeys;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Generates a {@link Trace} from a workload, a session count and a seed: the same arguments give the same trace.
 * Every request body is rendered and keyed by the gateway's real {@link PromptKeyer} here, once, so every run
 * replays the same keys.
 *
 * <p>Not thread-safe; one per trace.
 */
public final class TraceGenerator {
    /** The one model every cluster serves. */
    public static final String MODEL = "model-a";

    private static final int[] CHAT_SYSTEM = {1200, 1800, 2500, 3000};
    private static final int[] CHAT_TOOLS = {600, 1200, 2000};
    private static final int[] AGENT_SYSTEM = {2500, 3500};
    private static final int[] AGENT_TOOLS = {3000, 4000};
    private static final int TENANTS = 6;

    private final PromptKeyer keyer = new PromptKeyer();
    private final ChatBody bodies = new ChatBody();
    private final Set<Long> everSeen = new HashSet<>();
    private final SplittableRandom random;
    private long nextId = 1_000_000;

    private TraceGenerator(long seed) {
        this.random = new SplittableRandom(seed);
    }

    /** The trace of {@code sessions} sessions of {@code workload}, from {@code seed}. */
    public static Trace generate(Workload workload, int sessions, long seed) {
        TraceGenerator generator = new TraceGenerator(seed);
        List<Session> out = new ArrayList<>(sessions);
        double start = 0;
        for (int i = 0; i < sessions; i++) {
            start += -Math.log(1 - generator.random.nextDouble());
            out.add(new Session(start, generator.session(workload)));
        }
        return new Trace(workload, out);
    }

    private List<Turn> session(Workload workload) {
        return switch (workload) {
            case SHARED_CHAT -> chat("", CHAT_SYSTEM, CHAT_TOOLS, 0.7);
            case AGENTIC -> agent("", 10, 30);
            case ONE_OFF -> oneOff("");
            case TENANT_MIX -> tenantSession();
        };
    }

    private List<Turn> tenantSession() {
        String salt = "tenant-" + random.nextInt(TENANTS);
        double kind = random.nextDouble();
        if (kind < 0.45) {
            return chat(salt, new int[] {2000, 3000}, new int[] {1500}, 0.5);
        } else if (kind < 0.60) {
            return agent(salt, 5, 20);
        } else if (kind < 0.97) {
            return oneOff(salt);
        }
        return tokenArray(salt);
    }

    private List<Turn> chat(String salt, int[] systems, int[] toolLists, double toolShare) {
        Conversation conversation = new Conversation(salt);
        int system = random.nextInt(systems.length);
        conversation.history.add(new Segment(100 + system, systems[system], Segment.Role.SYSTEM));
        if (random.nextDouble() < toolShare) {
            int tools = random.nextInt(toolLists.length);
            conversation.history.add(new Segment(200 + tools, toolLists[tools], Segment.Role.TOOLS));
        }
        int turns = between(2, 10);
        List<Turn> out = new ArrayList<>(turns);
        for (int i = 0; i < turns; i++) {
            Segment question = fresh(between(30, 300), Segment.Role.USER);
            out.add(conversation.turn(question, between(50, 400), i == 0 ? 0 : exponential(8)));
        }
        return out;
    }

    private List<Turn> agent(String salt, int minTurns, int maxTurns) {
        Conversation conversation = new Conversation(salt);
        int pick = random.nextInt(AGENT_SYSTEM.length);
        conversation.history.add(new Segment(300 + pick, AGENT_SYSTEM[pick], Segment.Role.SYSTEM));
        conversation.history.add(new Segment(400 + pick, AGENT_TOOLS[pick], Segment.Role.TOOLS));
        int turns = between(minTurns, maxTurns);
        List<Turn> out = new ArrayList<>(turns);
        out.add(conversation.turn(fresh(between(200, 800), Segment.Role.USER), between(30, 250), 0));
        for (int i = 1; i < turns; i++) {
            Segment result = fresh(between(100, 1500), Segment.Role.USER);
            out.add(conversation.turn(result, between(30, 250), exponential(1.5)));
        }
        return out;
    }

    private List<Turn> oneOff(String salt) {
        Conversation conversation = new Conversation(salt);
        return List.of(conversation.turn(fresh(between(300, 4000), Segment.Role.USER), between(50, 300), 0));
    }

    private List<Turn> tokenArray(String salt) {
        int tokens = between(500, 3000);
        List<Segment> prompt = List.of(fresh(tokens - 1, Segment.Role.USER));
        PromptKeys keys = keyer.key(ApiDialect.COMPLETIONS, ChatBody.tokenArray(MODEL, tokens));
        int output = between(50, 300);
        List<Segment> stream = List.of(prompt.getFirst(), fresh(output, Segment.Role.ASSISTANT));
        return List.of(build(keys, salt, prompt, stream, 0));
    }

    /** A turn of {@code prompt}; {@code stream} is the prompt followed by its answer. */
    private Turn build(PromptKeys keys, String salt, List<Segment> prompt, List<Segment> stream, double think) {
        int output = stream.getLast().tokens();
        long[] blocks = EngineBlocks.hashes(EngineBlocks.seed(MODEL, salt), stream);
        int promptTokens = EngineBlocks.tokens(prompt);
        int limit = Math.min(blocks.length, (promptTokens - 1) / EngineBlocks.BLOCK_TOKENS);
        int hit = 0;
        while (hit < limit && everSeen.contains(blocks[hit])) {
            hit++;
        }
        for (long block : blocks) {
            everSeen.add(block);
        }
        int ideal = promptTokens - hit * EngineBlocks.BLOCK_TOKENS;
        return new Turn(keys, blocks, promptTokens, output, think, ideal);
    }

    private Segment fresh(int tokens, Segment.Role role) {
        return new Segment(nextId++, tokens, role);
    }

    private int between(int min, int max) {
        return min + random.nextInt(max - min + 1);
    }

    private double exponential(double mean) {
        return -mean * Math.log(1 - random.nextDouble());
    }

    /** A session's growing history: each turn sends it plus a new message, and its answer joins it. */
    private final class Conversation {
        private final String salt;
        private final List<Segment> history = new ArrayList<>();

        Conversation(String salt) {
            this.salt = salt;
        }

        Turn turn(Segment input, int output, double think) {
            history.add(input);
            List<Segment> prompt = List.copyOf(history);
            PromptKeys keys = keyer.key(ApiDialect.CHAT_COMPLETIONS, bodies.render(MODEL, salt, prompt));
            Segment answer = fresh(output, Segment.Role.ASSISTANT);
            history.add(answer);
            return build(keys, salt, prompt, List.copyOf(history), think);
        }
    }
}

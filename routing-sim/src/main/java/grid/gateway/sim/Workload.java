package grid.gateway.sim;

/**
 * The synthetic workloads (docs/routing-sim.md). Token counts are engine tokens; a request's text has four bytes a token.
 *
 * <p>Thread-safe (immutable).
 */
public enum Workload {
    /**
     * Multi-turn chats sharing a few system prompts (4: 1.2k–3k tokens) and tool lists (3: 0.6k–2k tokens, on 70% of
     * sessions): 2–10 turns, user messages of 30–300 tokens, answers of 50–400, 8 s mean think time.
     */
    SHARED_CHAT("shared-chat"),
    /**
     * Long agentic sessions: one of 2 agent prompts (2.5k, 3.5k) with one of 2 tool lists (3k, 4k), a task of 200–800
     * tokens, then 10–30 turns each adding a tool result of 100–1,500 tokens after an answer of 30–250; 1.5 s mean
     * pause. Contexts grow to 20k–40k tokens.
     */
    AGENTIC("agentic"),
    /** Many one-off prompts: one turn, 300–4,000 unique tokens, answers of 50–300. */
    ONE_OFF("one-off"),
    /**
     * Six {@code cache_salt} tenants using the same two system prompts and one tool list (so salts keep them
     * apart): 45% chats, 15% agentic sessions (5–20 turns), 37% one-off prompts, 3% token-array prompts that get
     * no keys.
     */
    TENANT_MIX("tenant-mix");

    private final String label;

    Workload(String label) {
        this.label = label;
    }

    /** The name in reports. */
    public String label() {
        return label;
    }
}

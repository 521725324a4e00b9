package grid.gateway.routing.keyer;

/**
 * Unwinds a walk from any depth the moment the chain holds its 512th key: the keyer stops reading there
 * (docs/design.md §4), so nothing after that key, not even the shape of the element it ended in, can cost the body
 * its keys.
 *
 * <p>Internal to the keyer: {@link PromptKeyer} catches it and finishes the chain. It carries no stack trace and no
 * state, so one instance serves every body.
 */
final class ChainFull extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The one instance: thrown by {@link BlockChain} as it adds its 512th key. */
    static final ChainFull INSTANCE = new ChainFull();

    private ChainFull() {
        super("512 keys", null, false, false);
    }
}

package grid.gateway.routing.keyer;

/**
 * Unwinds a walk from any depth once the body is known to get no keys.
 *
 * <p>Internal to the keyer: {@link PromptKeyer} catches every one and returns its reason as a value, so no caller
 * ever sees it. It carries no stack trace, which keeps a stream of hostile bodies cheap to refuse.
 */
final class NoKeysSignal extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final NoKeysReason reason;

    NoKeysSignal(NoKeysReason reason) {
        super(reason.label(), null, false, false);
        this.reason = reason;
    }

    NoKeysReason reason() {
        return reason;
    }
}

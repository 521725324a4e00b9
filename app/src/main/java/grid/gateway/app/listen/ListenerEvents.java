package grid.gateway.app.listen;

/**
 * What a {@link ListenerGuard} reports, for metrics. Implementations must not block and must be thread-safe.
 */
public interface ListenerEvents {
    /** The listener named {@code listener} could not accept a connection and pauses accepting. */
    void acceptPaused(String listener);

    /** The listener named {@code listener} accepts again after a pause. */
    void acceptResumed(String listener);

    /** A client of the listener named {@code listener} took no byte for the send timeout: its connection closed. */
    void sendTimedOut(String listener);

    /** Reports nothing. */
    ListenerEvents NONE = new ListenerEvents() {
        @Override
        public void acceptPaused(String listener) {}

        @Override
        public void acceptResumed(String listener) {}

        @Override
        public void sendTimedOut(String listener) {}
    };
}

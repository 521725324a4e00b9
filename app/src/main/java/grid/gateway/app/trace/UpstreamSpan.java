package grid.gateway.app.trace;

/**
 * What became of one try upstream, recorded on its client span.
 *
 * <p>Not thread-safe: used by the request's own thread only.
 */
public interface UpstreamSpan {
    /** Records nothing: no span is exported. */
    UpstreamSpan NONE = new UpstreamSpan() {
        @Override
        public void answered(int status) {}

        @Override
        public void failed(String reason) {}
    };

    /** The cluster answered with {@code status}. */
    void answered(int status);

    /** The try failed before an answer: {@code reason} is the failure's metric label (connect, timeout, reset). */
    void failed(String reason);

    /**
     * The request went to the cluster a second time, on a new connection, for {@code reason} (the {@code reason}
     * label of {@code grid_upstream_retries_total}); what this span records of the answer is the second send's.
     */
    default void resent(String reason) {}
}

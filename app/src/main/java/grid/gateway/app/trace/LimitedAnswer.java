package grid.gateway.app.trace;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import org.jspecify.annotations.Nullable;

/**
 * A collector's answer body, kept up to {@code limit} bytes: a longer one cancels its subscription (the HTTP client
 * then closes the connection) and ends the answer in {@link TooLong}, so an endless or huge body costs at most the
 * limit in memory.
 *
 * <p>Thread-safe as a body subscriber must be: the client calls it one signal at a time.
 */
final class LimitedAnswer implements HttpResponse.BodySubscriber<byte[]> {
    /** An answer body longer than the limit. */
    static final class TooLong extends IOException {
        private static final long serialVersionUID = 1L;

        TooLong(long limit) {
            super("the collector's answer is longer than " + limit + " bytes");
        }
    }

    private final int limit;
    private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
    private final CompletableFuture<byte[]> body = new CompletableFuture<>();
    private Flow.@Nullable Subscription subscription;

    LimitedAnswer(int limit) {
        this.limit = limit;
    }

    @Override
    public CompletionStage<byte[]> getBody() {
        return body;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        s.request(1);
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
        Flow.Subscription s = subscription;
        for (ByteBuffer item : items) {
            if (item.remaining() > limit - kept.size()) {
                if (s != null) {
                    s.cancel();
                }
                body.completeExceptionally(new TooLong(limit));
                return;
            }
            byte[] bytes = new byte[item.remaining()];
            item.get(bytes);
            kept.writeBytes(bytes);
        }
        if (s != null) {
            s.request(1);
        }
    }

    @Override
    public void onError(Throwable failure) {
        body.completeExceptionally(failure);
    }

    @Override
    public void onComplete() {
        body.complete(kept.toByteArray());
    }
}

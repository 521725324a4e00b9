package grid.gateway.enginesim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class EngineQueueTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    @Test
    void engineQueue_moreRequestsThanSlots_laterOnesWaitUntilASlotIsFree() throws Exception {
        EngineQueue queue = new EngineQueue(2);
        EngineQueue.Slot first = queue.admit();
        queue.admit();
        CompletableFuture<EngineQueue.Slot> third = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> admitInto(queue, third));

        assertThat(queue.awaitCounts(2, 1, WAIT)).isTrue();
        assertThat(third).isNotDone();

        first.close();
        first.close(); // a second close gives nothing back twice
        third.get(10, TimeUnit.SECONDS);
        assertThat(queue.awaitCounts(2, 0, WAIT)).isTrue();
    }

    @Test
    void engineQueue_interruptedWaiter_leavesTheLine() throws Exception {
        EngineQueue queue = new EngineQueue(1);
        EngineQueue.Slot only = queue.admit();
        CompletableFuture<EngineQueue.Slot> waiter = new CompletableFuture<>();
        Thread thread = Thread.ofVirtual().start(() -> admitInto(queue, waiter));
        assertThat(queue.awaitCounts(1, 1, WAIT)).isTrue();

        thread.interrupt();

        assertThatThrownBy(() -> waiter.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(InterruptedException.class);
        assertThat(queue.waiting()).isZero();
        only.close();
        assertThat(queue.running()).isZero();
    }

    @Test
    void engineQueue_awaitCounts_falseOnTimeout() throws Exception {
        EngineQueue queue = new EngineQueue(1);

        assertThat(queue.awaitCounts(1, 0, Duration.ZERO)).isFalse();
    }

    @Test
    void engineQueue_noSlots_refused() {
        assertThatThrownBy(() -> new EngineQueue(0)).isInstanceOf(IllegalArgumentException.class);
    }

    private static void admitInto(EngineQueue queue, CompletableFuture<EngineQueue.Slot> result) {
        try {
            result.complete(queue.admit());
        } catch (InterruptedException e) {
            result.completeExceptionally(e);
        }
    }
}

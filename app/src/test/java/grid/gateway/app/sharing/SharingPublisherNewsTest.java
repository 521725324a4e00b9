package grid.gateway.app.sharing;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.SiteName;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** What the publishing thread sends of each entry: the new tail of a turn, nothing old, drops in full. */
class SharingPublisherNewsTest {
    private static final ClusterId EAST_A = new ClusterId(new SiteName("east"), "east-a");
    private static final ClusterId EAST_B = new ClusterId(new SiteName("east"), "east-b");

    private final SharingPublisher publisher = new SharingPublisher(
            "00ff", "test", null, new SharingPublisher.Context(null, () -> 0, () -> 1000, () -> 150_000), 16);

    private static long[] keys(int n) {
        return LongStream.rangeClosed(1, n).map(i -> i * 7919).toArray();
    }

    private static SharedEntry confirm(ClusterId cluster, int n, long at) {
        return SharedEntry.of("00ff", cluster, true, at, keys(n));
    }

    @Test
    void aTurnSendsItsNewTail_aRepeatNothing_aDropInFull() {
        assertThat(publisher.news(confirm(EAST_A, 40, 0)).keys()).containsExactly(keys(40));
        SharedEntry tail = publisher.news(confirm(EAST_A, 48, 10_000));
        assertThat(tail.keys())
                .containsExactly(
                        LongStream.rangeClosed(41, 48).map(i -> i * 7919).toArray());
        assertThat(tail.atMillis()).isEqualTo(10_000);
        assertThat(tail.clusterKey()).isEqualTo(confirm(EAST_A, 1, 0).clusterKey());
        assertThat(publisher.news(confirm(EAST_A, 48, 20_000))).isNull();
        assertThat(publisher.news(confirm(EAST_B, 48, 20_000)).keys()).hasSize(48);

        SharedEntry drop = SharedEntry.of("00ff", EAST_A, false, 30_000, keys(10));
        assertThat(publisher.news(drop)).isSameAs(drop);
        assertThat(publisher.news(confirm(EAST_A, 48, 40_000)).keys())
                .as("after a drop")
                .hasSize(48);
        assertThat(publisher.news(confirm(EAST_A, 48, 40_000 + 150_000)).keys())
                .as("a refresh interval later")
                .hasSize(48);
    }
}

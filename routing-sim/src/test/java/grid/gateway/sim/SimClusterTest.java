package grid.gateway.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class SimClusterTest {
    private static final ClusterModel ONE_SLOT = new ClusterModel("east", "east-a", 1, 1000, 10, 16_000);
    private static final ClusterModel TWO_SLOTS = new ClusterModel("east", "east-a", 2, 1000, 10, 16_000);

    @Test
    void start_coldPrompt_firstTokenAfterItsPrefillThenDecode() {
        SimCluster cluster = new SimCluster(ONE_SLOT);
        Flight flight = new Flight(Turns.single(1, 1000, 20), 0, 0, 0);

        assertThat(cluster.admit(flight, 0)).isTrue();

        // 1,000 uncached tokens at 1,000 tokens/s, then 20 tokens at 10 tokens/s.
        assertThat(flight.cachedTokens).isZero();
        assertThat(flight.firstToken).isCloseTo(1.0, within(1e-9));
        assertThat(flight.done).isCloseTo(3.0, within(1e-9));
    }

    @Test
    void start_promptCachedByEarlierRequest_prefillsOnlyTheRest() {
        SimCluster cluster = new SimCluster(ONE_SLOT);
        Turn turn = Turns.single(1, 1000, 20);
        Flight first = new Flight(turn, 0, 0, 0);
        cluster.admit(first, 0);
        cluster.firstToken(first);
        cluster.finish(first, first.done);

        Flight again = new Flight(turn, 1, 0, 10);
        cluster.admit(again, 10);

        // 1,000 tokens are 62 full blocks and 8 tokens; the last token is always computed, so 62 blocks hit.
        assertThat(again.cachedTokens).isEqualTo(62 * EngineBlocks.BLOCK_TOKENS);
        assertThat(again.firstToken - 10).isCloseTo((1000 - 992) / 1000.0, within(1e-9));
    }

    @Test
    void admit_noFreeSlot_waitsInLineUntilTheSlotFrees() {
        SimCluster cluster = new SimCluster(ONE_SLOT);
        Flight first = new Flight(Turns.single(1, 1000, 20), 0, 0, 0);
        Flight second = new Flight(Turns.single(2, 500, 10), 1, 0, 0.5);
        cluster.admit(first, 0);

        assertThat(cluster.admit(second, 0.5)).isFalse();
        assertThat(cluster.waiting()).isEqualTo(1);

        assertThat(cluster.finish(first, first.done)).isSameAs(second);
        assertThat(cluster.waiting()).isZero();
        // It starts when the slot frees at 3.0 and prefills 500 tokens: time to first token 3.0 - 0.5 + 0.5.
        assertThat(second.firstToken - second.arrival).isCloseTo(3.0, within(1e-9));
    }

    @Test
    void start_twoPrefillsAtOnce_shareThePrefillServerInOrder() {
        SimCluster cluster = new SimCluster(TWO_SLOTS);
        Flight first = new Flight(Turns.single(1, 1000, 20), 0, 0, 0);
        Flight second = new Flight(Turns.single(2, 1000, 20), 1, 0, 0);

        cluster.admit(first, 0);
        cluster.admit(second, 0);

        assertThat(first.firstToken).isCloseTo(1.0, within(1e-9));
        assertThat(second.firstToken).isCloseTo(2.0, within(1e-9));
    }

    @Test
    void predictedTtft_idleCluster_isTheUncachedPrefill() {
        SimCluster cluster = new SimCluster(ONE_SLOT);

        assertThat(cluster.predictedTtft(Turns.single(1, 2000, 10), 5)).isCloseTo(2.0, within(1e-9));
    }

    @Test
    void predictedTtft_slotBusy_addsTheWaitForTheSlot() {
        SimCluster cluster = new SimCluster(ONE_SLOT);
        cluster.admit(new Flight(Turns.single(1, 1000, 20), 0, 0, 0), 0);

        // The slot frees at 3.0; then 1,000 tokens of prefill.
        assertThat(cluster.predictedTtft(Turns.single(2, 1000, 10), 0)).isCloseTo(4.0, within(1e-9));
    }
}

package grid.gateway.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SlotsToldTest {
    @Test
    void scraped_firstScrapeOfEachClusterTellsItsSlots_thenOnlyTheRealSeries() throws ReflectiveOperationException {
        Recording router = new Recording();
        Policy told = new SlotsTold(router, List.of(16, 32));
        EngineSeries first = series(0, 3);
        EngineSeries second = series(1, 5);

        told.scraped(0, first);
        told.scraped(0, second);
        told.scraped(1, first);

        // Cluster 0's first scrape: the slots as the running count, then the real series; its second: the real one.
        assertThat(router.seen).hasSize(5);
        assertThat(router.seen.subList(1, 3)).containsExactly(first, second);
        assertThat(router.seen.get(4)).isEqualTo(first);
        assertThat(router.seen.get(0).running()).isEqualTo(16);
        assertThat(router.seen.get(3).running()).isEqualTo(32);
        // Every other series in a told sample is the real one's, so nothing else the router learns changes.
        for (RecordComponent component : EngineSeries.class.getRecordComponents()) {
            if (!component.getName().equals("running")) {
                Object real = component.getAccessor().invoke(first);
                assertThat(component.getAccessor().invoke(router.seen.get(0)))
                        .as(component.getName())
                        .isEqualTo(real);
                assertThat(component.getAccessor().invoke(router.seen.get(3)))
                        .as(component.getName())
                        .isEqualTo(real);
            }
        }
    }

    private static EngineSeries series(int scrape, int running) {
        return new EngineSeries(
                1_000L + scrape, 2_000 + scrape, 3, 4, 5.5, 6, 7.5, 8, 9.5, 10, 11, running, 2, 16, 12_000);
    }

    /** Records every series it is given. */
    private static final class Recording implements Policy {
        final List<EngineSeries> seen = new ArrayList<>();

        @Override
        public String name() {
            return "recording";
        }

        @Override
        public void choose(Flight flight, List<SimCluster> clusters) {}

        @Override
        public void scraped(int cluster, EngineSeries series) {
            seen.add(series);
        }
    }
}

package grid.gateway.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import grid.gateway.routing.select.LoadOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class SimOptionsTest {
    @Test
    void options_quickLook_restrictsWorkloadGridAndLoads() {
        SimOptions options =
                new SimOptions(new String[] {"--workload", "shared-chat", "--grid", "slow", "--loads", "0.8"});

        assertThat(options.workloads()).containsExactly("shared-chat");
        assertThat(options.grids()).containsExactly("slow");
        assertThat(options.selection(1).loads()).containsExactly(0.8);
        assertThat(options.selection(1).policies()).containsExactly(PolicyKind.values());
        assertThat(options.selection(3).policies()).containsExactly(PolicyKind.GRID_SITE_ROUTE);
    }

    @Test
    void options_defaults_everyWorkloadAndTheTraceOnEveryGrid() {
        SimOptions options = new SimOptions(new String[] {"--trace", "t.jsonl"});

        assertThat(options.workloads()).endsWith("mooncake").hasSize(Workload.values().length + 1);
        assertThat(options.grids()).isEqualTo(SimGrid.NAMES);
        assertThat(options.replicas()).containsExactly(1, 3, 6);
        assertThat(options.trace()).contains(Path.of("t.jsonl"));
        assertThat(options.tracePeakLoad()).isTrue();
        assertThat(options.tuning()).isEqualTo(GatewayTuning.defaults());
    }

    @Test
    void options_loadSignal_setsBothGatewayPoliciesTuning() {
        SimOptions options = new SimOptions(new String[] {"--poll-ms", "100", "--window-secs", "1"});

        assertThat(options.tuning().pollSeconds()).isEqualTo(0.1);
        assertThat(options.tuning().window()).isEqualTo(Duration.ofSeconds(1));
        assertThat(options.replicas()).isEqualTo(List.of(1, 3, 6));
    }

    @Test
    void options_unknownOrMissingValue_fails() {
        assertThatThrownBy(() -> new SimOptions(new String[] {"--colour", "red"}))
                .hasMessageContaining("--colour");
        assertThatThrownBy(() -> new SimOptions(new String[] {"--scale"})).hasMessageContaining("needs a value");
        assertThatThrownBy(() -> new SimOptions(new String[] {"--trace-load", "max"}))
                .hasMessageContaining("mean or peak");
    }

    @Test
    void options_shareBacklog_travelsInTheStream() {
        SimOptions options = new SimOptions(new String[] {"--sharing-lag-ms", "10", "--share-backlog", "on"});
        assertThat(options.recommendedShared(3).tuning().sharedBacklog()).isTrue();
        assertThat(options.recommended(3).tuning().sharedBacklog())
                .as("the replicas alone")
                .isFalse();
        assertThat(new SimOptions(new String[] {"--sharing-lag-ms", "10"})
                        .recommendedShared(3)
                        .tuning()
                        .sharedBacklog())
                .isFalse();

        assertThatThrownBy(() -> new SimOptions(new String[] {"--share-backlog", "on"}))
                .hasMessageContaining("--sharing-lag-ms");
        assertThatThrownBy(() -> new SimOptions(new String[] {"--share-backlog", "yes"}))
                .hasMessageContaining("on or off");
    }

    @Test
    void options_recommended_ordersByExpectedWait_andDepthStillChosenByFlag() {
        SimOptions options = new SimOptions(new String[] {});
        assertThat(options.recommended(1).tuning().orderBy()).isEqualTo(LoadOrder.EXPECTED_WAIT);
        assertThat(options.recommendedAs()).endsWith("load.order_by: expected_wait");
        assertThat(options.sharedAs()).isEqualTo(Report.ONE_MEMORY);
        assertThat(options.tuning().orderBy()).as("the seed's defaults").isEqualTo(LoadOrder.DEPTH);

        SimOptions depth = new SimOptions(new String[] {"--order-by", "depth"});
        assertThat(depth.recommended(1).tuning().orderBy()).isEqualTo(LoadOrder.DEPTH);
        assertThat(depth.recommendedAs()).endsWith("load.order_by: depth");

        SimOptions stream = new SimOptions(new String[] {"--sharing-lag-ms", "10", "--share-backlog", "on"});
        assertThat(stream.sharedAs()).contains("10 ms later").contains("share_backlog");
    }

    @Test
    void options_without_switchesTheCausesOffInEveryGatewayFedRun_andTheLabelsSaySo() {
        SimOptions options = new SimOptions(new String[] {"--without", "drop-on-error,exploration", "--replicas", "3"});

        for (GatewayTuning tuning : List.of(
                options.tuning(),
                options.recommended(1).tuning(),
                options.recommendedShared(3).tuning())) {
            assertThat(tuning.isOff(SimCause.DROP_ON_ERROR)).as(tuning.name()).isTrue();
            assertThat(tuning.isOff(SimCause.EXPLORATION)).as(tuning.name()).isTrue();
            assertThat(tuning.isOff(SimCause.DROP_ON_429)).as(tuning.name()).isFalse();
        }
        assertThat(options.without()).containsExactlyInAnyOrder(SimCause.DROP_ON_ERROR, SimCause.EXPLORATION);
        assertThat(options.recommendedAs())
                .endsWith("load.order_by: expected_wait, with the simulation switching off exploration, drop on error");

        SimOptions product = new SimOptions(new String[] {});
        assertThat(product.without()).isEmpty();
        assertThat(product.recommended(1).tuning().isOff(SimCause.DROP_ON_ERROR))
                .as("the product's rules by default")
                .isFalse();
    }

    @Test
    void options_without_everyCauseByItsOptionName_andAnUnknownOneFailsListingThem() {
        for (SimCause cause : SimCause.values()) {
            assertThat(SimCause.ofOption(cause.option())).isEqualTo(cause);
        }
        assertThat(SimCause.DROP_ON_429.option()).isEqualTo("drop-on-429");

        assertThatThrownBy(() -> new SimOptions(new String[] {"--without", "drop"}))
                .hasMessageContaining("no cause drop")
                .hasMessageContaining("drop-on-error, drop-on-429");
    }
}

package grid.gateway.enginesim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class EngineSimulatorMainTest {
    @Test
    void parse_everyOption_intoSettings() {
        EngineSettings settings = EngineSimulatorMain.parse(new String[] {
            "--port",
            "8123",
            "--name",
            "site-a",
            "--model",
            "m1",
            "--model",
            "m2",
            "--slots",
            "3",
            "--prefill-tps",
            "500.5",
            "--decode-tps",
            "25",
            "--cache-blocks",
            "64",
            "--answer-tokens",
            "5",
            "--host",
            "0.0.0.0",
            "--instant"
        });

        assertThat(settings.port()).isEqualTo(8123);
        assertThat(settings.name()).isEqualTo("site-a");
        assertThat(settings.models()).containsExactly("m1", "m2");
        assertThat(settings.slots()).isEqualTo(3);
        assertThat(settings.prefillTokensPerSecond()).isEqualTo(500.5);
        assertThat(settings.decodeTokensPerSecond()).isEqualTo(25);
        assertThat(settings.cacheBlocks()).isEqualTo(64);
        assertThat(settings.answerTokens()).isEqualTo(5);
        assertThat(settings.host()).isEqualTo("0.0.0.0");
        assertThat(settings.pacer()).isSameAs(Pacer.instant());
    }

    @Test
    void parse_noOptions_defaults() {
        EngineSettings settings = EngineSimulatorMain.parse(new String[0]);

        assertThat(settings.port()).isZero();
        assertThat(settings.models()).containsExactly("demo-model");
        assertThat(settings.pacer()).isSameAs(Pacer.sleeping());
        // vLLM as operators run it: block size 16, prompt-token details, its usage and error shapes.
        assertThat(settings.blockSize()).isEqualTo(16);
        assertThat(settings.api()).isEqualTo(ApiSurface.VLLM);
        assertThat(settings.frontend()).isEqualTo(Frontend.NONE);
    }

    @Test
    void parse_vllmOptions_intoTheSurfaceAndFrontend() {
        EngineSettings settings = EngineSimulatorMain.parse(new String[] {
            "--block-size",
            "128",
            "--max-model-len",
            "4096",
            "--no-prompt-tokens-details",
            "--conversations",
            "--delete-stored-responses",
            "--keep-alive-after-rejection",
            "--engine-intake",
            "36",
            "--scrape-stall-at",
            "100",
            "--scrape-stall-ms",
            "8000"
        });

        assertThat(settings.blockSize()).isEqualTo(128);
        assertThat(settings.maxModelLen()).isEqualTo(4096);
        assertThat(settings.api()).isEqualTo(new ApiSurface(false, false, true, true, false));
        assertThat(settings.frontend()).isEqualTo(Frontend.asRecorded());
    }

    @Test
    void parse_badOptions_refusedWithTheOption() {
        assertThatThrownBy(() -> EngineSimulatorMain.parse(new String[] {"--bogus", "1"}))
                .hasMessageContaining("--bogus");
        assertThatThrownBy(() -> EngineSimulatorMain.parse(new String[] {"--port"}))
                .hasMessageContaining("--port needs a value");
        assertThatThrownBy(() -> EngineSimulatorMain.parse(new String[] {"--slots", "many"}))
                .hasMessageContaining("--slots");
        assertThatThrownBy(() -> EngineSimulatorMain.parse(new String[] {"--slots", "0"}))
                .hasMessageContaining("slots");
    }

    @Test
    void start_portTaken_refused() {
        try (EngineSimulator first = EngineSettings.builder().instant().start()) {
            EngineSettings.Builder second = EngineSettings.builder().port(first.port());

            assertThatThrownBy(second::start).isInstanceOf(IllegalStateException.class);
        }
    }
}

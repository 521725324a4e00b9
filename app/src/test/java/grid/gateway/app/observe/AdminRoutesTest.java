package grid.gateway.app.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.helidon.http.HeaderNames;
import io.helidon.metrics.api.Gauge;
import io.helidon.metrics.api.MeterRegistry;
import io.helidon.service.registry.Services;
import io.helidon.webclient.http1.Http1ClientResponse;
import io.helidon.webserver.WebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AdminRoutesTest {
    private final Readiness readiness = new Readiness();
    private AdminServer server;

    @BeforeEach
    void start() {
        server = AdminServer.start(Services.get(MeterRegistry.class), readiness);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void healthLive_notReady_answers200() {
        try (Http1ClientResponse response = server.admin("/health/live")) {
            assertThat(response.status().code()).isEqualTo(200);
            assertThat(response.as(String.class)).isEqualTo("live\n");
        }
    }

    @Test
    void healthReady_noConfigLoaded_answers503NamingWhatIsMissing() {
        readiness.clientListenerBound();

        try (Http1ClientResponse response = server.admin("/health/ready")) {
            assertThat(response.status().code()).isEqualTo(503);
            assertThat(response.as(String.class)).isEqualTo("not ready: no serving config loaded\n");
        }
    }

    @Test
    void healthReady_configLoadedListenerNotBound_answers503() {
        readiness.configLoaded();

        try (Http1ClientResponse response = server.admin("/health/ready")) {
            assertThat(response.status().code()).isEqualTo(503);
            assertThat(response.as(String.class)).isEqualTo("not ready: client listener not bound\n");
        }
    }

    @Test
    void healthReady_configLoadedAndListenerBound_answers200() {
        readiness.configLoaded();
        readiness.clientListenerBound();

        try (Http1ClientResponse response = server.admin("/health/ready")) {
            assertThat(response.status().code()).isEqualTo(200);
            assertThat(response.as(String.class)).isEqualTo("ready\n");
            assertThat(response.headers().get(HeaderNames.CACHE_CONTROL).values())
                    .contains("no-store");
        }
    }

    @Test
    void metrics_adminSocket_servesPrometheusText() {
        try (Http1ClientResponse response = server.admin("/metrics")) {
            assertThat(response.status().code()).isEqualTo(200);
            assertThat(response.headers().contentType().orElseThrow().text()).startsWith("text/plain");
            assertThat(response.as(String.class)).contains("# TYPE ");
        }
    }

    @Test
    void metrics_jsonAskedFor_406SayingWhatIsServed_textStillServed_whileAGaugeIsNaN() {
        // A documented NaN (a cluster not measured yet) made Helidon's JSON formatter throw: a 500, and a stack trace
        // logged at every such scrape.
        MeterRegistry registry = Services.get(MeterRegistry.class);
        Gauge<Double> unmeasured =
                registry.getOrCreate(Gauge.builder("admin_routes_test_unmeasured", () -> Double.NaN));
        try {
            for (String accept : new String[] {"application/json", "application/json, */*;q=0.1"}) {
                try (Http1ClientResponse response = server.admin("/metrics", accept)) {
                    assertThat(response.status().code()).as(accept).isEqualTo(406);
                    assertThat(response.as(String.class))
                            .isEqualTo("not acceptable: /metrics is served as text/plain (Prometheus 0.0.4) or"
                                    + " application/openmetrics-text\n");
                }
            }
            for (String accept : new String[] {"text/plain", "application/openmetrics-text", "*/*"}) {
                try (Http1ClientResponse response = server.admin("/metrics", accept)) {
                    assertThat(response.status().code()).as(accept).isEqualTo(200);
                    assertThat(response.as(String.class)).contains("admin_routes_test_unmeasured");
                }
            }
        } finally {
            registry.remove(unmeasured);
        }
    }

    @Test
    void metricsAndHealth_clientSocket_notServed() {
        for (String path : new String[] {"/metrics", "/observe/metrics", "/health/live", "/health/ready"}) {
            try (Http1ClientResponse response = server.client(path)) {
                assertThat(response.status().code()).as(path).isEqualTo(404);
            }
        }
    }

    @Test
    void addTo_serverWithoutAdminSocket_refusedNamingTheSocket() {
        assertThatThrownBy(() -> AdminRoutes.addTo(WebServer.builder(), Services.get(MeterRegistry.class), readiness))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("\"admin\" socket");
    }
}

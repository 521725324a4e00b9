package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.Socket;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Two clusters at one engine URL (one host and port: an ingress that routes each by its path, or one engine listed
 * twice), each serving its own model, so that their requests share the pooled connections of that origin. Bytes an
 * answer of one cluster's leaves on a connection are counted against that cluster, whichever cluster's request
 * finds them, so that {@code grid_upstream_leftovers_total{cluster}} names the engine that wrote them; so is the
 * retry such bytes make when they come only after the other cluster's request went out
 * ({@code grid_upstream_retries_total{reason="out_of_step"}}).
 */
class SharedOriginLeftoversIntegrationTest extends BehindAFreshGateway {
    private static final String OTHER_MODEL = "other-model";

    @Override
    String config(String oneEngine) {
        String models = "        models: [demo-model]\n";
        assertThat(oneEngine).contains(models);
        return oneEngine.replace(
                models,
                models + "      - name: east-b\n        url: " + engine.url()
                        + "\n        metrics_url: http://127.0.0.1:1/metrics\n        models: [" + OTHER_MODEL + "]\n");
    }

    private RawClient.Answer ask(String who, String model) throws IOException {
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.post(
                    "/v1/chat/completions",
                    UpstreamAnswersIntegrationTest.chat(who).replace("demo-model", model));
            return client.read();
        }
    }

    private double leftovers(String cluster) {
        return gateway.metric("grid_upstream_leftovers_total", "cluster=\"east/" + cluster + "\",found=\"idle\"");
    }

    @Test
    void bytesOneClustersAnswerLeftOnASharedConnection_foundByTheOthersRequest_countedAgainstTheFirst()
            throws Exception {
        CountDownLatch answered = new CountDownLatch(1);
        CountDownLatch written = new CountDownLatch(1);
        engine.script = e -> {
            String who = UpstreamAnswersIntegrationTest.who(e);
            e.write(UpstreamAnswersIntegrationTest.ok(UpstreamAnswersIntegrationTest.body(who)));
            if (who.equals("B")) {
                // Written once B's client has its answer, so its connection is in the pool by then.
                answered.await(10, TimeUnit.SECONDS);
                e.write("}");
                written.countDown();
            }
        };
        assertThat(ask("B", "demo-model").body()).isEqualTo(UpstreamAnswersIntegrationTest.body("B"));
        ScriptedUpstream.Exchange b = engine.take();
        answered.countDown();
        assertThat(written.await(10, TimeUnit.SECONDS)).isTrue();
        b.awaitUnreadAtTheGateway();

        RawClient.Answer c = ask("C", OTHER_MODEL);

        assertThat(c.body()).isEqualTo(UpstreamAnswersIntegrationTest.body("C"));
        assertThat(engine.take().socket).as("C on a new connection").isNotSameAs(b.socket);
        System.out.println("METRICS "
                + gateway.metrics().lines().filter(l -> l.contains("leftovers")).toList());
        assertThat(leftovers("east-a")).as("east-a, whose answer left them").isEqualTo(1.0);
        assertThat(leftovers("east-b")).as("east-b, whose request found them").isZero();
    }

    private double outOfStep(String cluster) {
        return gateway.metric("grid_upstream_retries_total", "cluster=\"east/" + cluster + "\",reason=\"out_of_step\"");
    }

    @Test
    void bytesOneClustersAnswerLeft_metByTheOthersRequestAfterItWentOut_retryCountedAgainstTheFirst() throws Exception {
        AtomicReference<Socket> bs = new AtomicReference<>();
        engine.script = e -> {
            String who = UpstreamAnswersIntegrationTest.who(e);
            if (who.equals("B")) {
                bs.set(e.socket);
            }
            // On the shared connection, what B's answer left lands only after C's request went out on it.
            e.write((who.equals("C") && e.socket == bs.get() ? "}" : "")
                    + UpstreamAnswersIntegrationTest.ok(UpstreamAnswersIntegrationTest.body(who)));
        };
        assertThat(ask("B", "demo-model").body()).isEqualTo(UpstreamAnswersIntegrationTest.body("B"));

        RawClient.Answer c = ask("C", OTHER_MODEL);

        assertThat(c.body()).isEqualTo(UpstreamAnswersIntegrationTest.body("C"));
        assertThat(outOfStep("east-a"))
                .as("east-a, whose answer left the bytes")
                .isEqualTo(1.0);
        assertThat(outOfStep("east-b")).as("east-b, whose request met them").isZero();
    }
}

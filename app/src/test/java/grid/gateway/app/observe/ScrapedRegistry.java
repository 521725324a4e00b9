package grid.gateway.app.observe;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Test fixture: one {@link AdminServer} over {@link MetricsHarness#REGISTRY} for a test class, started before its
 * first test and stopped after its last. Register it as a static {@code @RegisterExtension} field.
 */
final class ScrapedRegistry implements BeforeAllCallback, AfterAllCallback {
    private AdminServer server;

    @Override
    public void beforeAll(ExtensionContext context) {
        server = AdminServer.start(MetricsHarness.REGISTRY, new Readiness());
    }

    /** The admin socket's {@code /metrics}, parsed. */
    Scrape scrape() {
        return server.scrape();
    }

    /** The admin socket's {@code /metrics} asked for with {@code Accept: accept}, parsed. */
    Scrape scrape(String accept) {
        return server.scrape(accept);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        server.close();
    }
}

package grid.gateway.app.http;

import grid.gateway.app.GatewayHarness;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Test fixture for the framing tests: one {@link ScriptedUpstream} behind one gateway ({@link GatewayHarness#oneEngine},
 * the harness's default config), started once for the test class, with what the engine had seen marked before each
 * test, so that a test asserts what reached the engine during it. Register it as a static
 * {@code @RegisterExtension} field.
 */
final class BehindOneGateway implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback {
    private Path dir;
    ScriptedUpstream engine;
    GatewayHarness gateway;
    /** Connections the engine had accepted when the current test began. */
    int connectionsBefore;
    /** Requests the engine had received when the current test began. */
    int requestsBefore;

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        dir = Files.createTempDirectory("behind-one-gateway");
        engine = new ScriptedUpstream();
        gateway = new GatewayHarness(dir, GatewayHarness.config("", GatewayHarness.oneEngine(engine.url())), engine);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        connectionsBefore = engine.connections();
        requestsBefore = engine.requests().size();
    }

    /** The requests the engine received during the current test. */
    List<ScriptedUpstream.Request> forwarded() {
        List<ScriptedUpstream.Request> all = engine.requests();
        return all.subList(requestsBefore, all.size());
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        gateway.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(BehindOneGateway::delete);
        }
    }

    private static void delete(Path file) {
        try {
            Files.delete(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

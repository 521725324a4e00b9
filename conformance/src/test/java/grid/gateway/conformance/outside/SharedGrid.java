package grid.gateway.conformance.outside;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * One {@link OutsideGrid} for every test class of the run that asks for it (a jar and its engines take seconds to
 * start on a busy machine): a class extended with this resolver takes a {@code SharedGrid} in its {@code @BeforeAll}
 * method and calls {@link #grid()} once it knows the jar can run. The grid starts at the first call and stops, with
 * its folder removed, when the whole run ends.
 */
final class SharedGrid implements ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SharedGrid.class);

    private final ExtensionContext.Store store;

    /** JUnit's constructor. */
    SharedGrid() {
        this.store = null;
    }

    private SharedGrid(ExtensionContext.Store store) {
        this.store = store;
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == SharedGrid.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return new SharedGrid(context.getRoot().getStore(NAMESPACE));
    }

    /** The grid, started at the first call of the run. */
    OutsideGrid grid() {
        return store.getOrComputeIfAbsent(Running.class, key -> Running.start(), Running.class).grid;
    }

    private record Running(Path dir, OutsideGrid grid) implements ExtensionContext.Store.CloseableResource {
        static Running start() {
            try {
                Path dir = Files.createTempDirectory("outside-grid");
                return new Running(dir, new OutsideGrid(dir));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void close() throws IOException {
            grid.close();
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(file);
                }
            }
        }
    }
}

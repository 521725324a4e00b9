package grid.gateway.app.config;

import java.nio.charset.CharacterCodingException;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.composer.Composer;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.events.Event;
import org.yaml.snakeyaml.events.NodeEvent;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.parser.Parser;
import org.yaml.snakeyaml.parser.ParserImpl;
import org.yaml.snakeyaml.reader.StreamReader;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * Parses a config file's bytes into its top-level YAML mapping, with SnakeYAML's safe constructor and the YAML 1.2
 * core schema's plain scalars: {@code true}/{@code false} are the only booleans ({@code yes}, {@code on} stay
 * strings), integers are decimal without leading zeros ({@code 017} and {@code 12:30} stay strings instead of becoming
 * 15 and 750), and dates stay strings. Merge keys ({@code <<: *anchor}) work. A key written twice is refused.
 *
 * <p>Bounded: at most {@value #MAX_VALUES} values, nesting 50 deep, 50 aliases of mappings or lists (SnakeYAML's
 * bounds, so that a billion laughs is refused, not expanded), and a 1 MiB file ({@link ConfigFiles}).
 *
 * <p>Stateless and thread-safe: each call builds its own parser.
 */
final class YamlText {
    private static final String EXPECTED = "a YAML mapping with at least gateway and sites";
    /**
     * Most values a config may hold (scalars, aliases, mappings and lists, keys included): a grid of hundreds of
     * clusters, each with dozens of pod URLs, holds tens of thousands.
     */
    static final int MAX_VALUES = 100_000;

    private static final Pattern CORE_BOOL = Pattern.compile("^(?:true|True|TRUE|false|False|FALSE)$");
    private static final Pattern CORE_INT = Pattern.compile("^[-+]?(?:0|[1-9][0-9]*)$");
    // A float needs a point or an exponent, so that "017" stays a string rather than becoming 17.0.
    private static final Pattern CORE_FLOAT =
            Pattern.compile("^(?:[-+]?(?:\\.[0-9]+|[0-9]+\\.[0-9]*)(?:[eE][-+]?[0-9]+)?"
                    + "|[-+]?[0-9]+[eE][-+]?[0-9]+|[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN))$");

    private YamlText() {}

    /** The top-level mapping in {@code content}, or empty after recording why there is none. */
    static Optional<Map<?, ?>> parse(byte[] content, String source, Problems problems) {
        String text;
        try {
            text = ConfigFiles.utf8(content).toString();
        } catch (CharacterCodingException e) {
            problems.addLine(source + ": not UTF-8 text (expected: " + EXPECTED + ")");
            return Optional.empty();
        }
        Object document;
        try {
            document = load(text);
        } catch (TooManyValues e) {
            problems.addLine(source + ": more than " + MAX_VALUES + " YAML values (keys, values and list items;"
                    + " expected: " + EXPECTED + ")");
            return Optional.empty();
        } catch (MarkedYAMLException e) {
            problems.addLine(source + ": not valid YAML (" + where(e.getProblemMark()) + e.getProblem() + ")");
            return Optional.empty();
        } catch (YAMLException e) {
            problems.addLine(source + ": not valid YAML (" + e.getMessage() + ")");
            return Optional.empty();
        }
        if (document == null) {
            problems.addLine(source + ": empty (expected: " + EXPECTED + ")");
            return Optional.empty();
        }
        if (document instanceof Map<?, ?> map) {
            return Optional.of(map);
        }
        problems.add(source, document, EXPECTED);
        return Optional.empty();
    }

    private static String where(Mark mark) {
        return mark == null ? "" : "line " + (mark.getLine() + 1) + ", column " + (mark.getColumn() + 1) + ": ";
    }

    /**
     * The document in {@code text}, as SnakeYAML's {@code Yaml.load} builds it, from a parser that counts the values
     * (scalars, aliases, mappings and lists) and stops at {@link #MAX_VALUES}: a file of a mebibyte of one-character
     * list items is refused after a fraction of a second, where building it takes seconds and hundreds of MiB.
     */
    private static @Nullable Object load(String text) {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        options.setAllowRecursiveKeys(false);
        SafeConstructor constructor = new SafeConstructor(options);
        constructor.setAllowDuplicateKeys(false);
        Parser parser = new CountingParser(new ParserImpl(new StreamReader(text), options));
        constructor.setComposer(new Composer(parser, new CoreSchemaResolver(), options));
        return constructor.getSingleData(Object.class);
    }

    /** A parser that refuses the value after the {@link #MAX_VALUES}th. */
    private static final class CountingParser implements Parser {
        private final Parser parser;
        private int values;

        CountingParser(Parser parser) {
            this.parser = parser;
        }

        @Override
        public boolean checkEvent(Event.ID choice) {
            return parser.checkEvent(choice);
        }

        @Override
        public Event peekEvent() {
            return parser.peekEvent();
        }

        @Override
        public Event getEvent() {
            Event event = parser.getEvent();
            if (event instanceof NodeEvent && ++values > MAX_VALUES) {
                throw new TooManyValues();
            }
            return event;
        }
    }

    /** More values than {@link #MAX_VALUES}. */
    private static final class TooManyValues extends YAMLException {
        private static final long serialVersionUID = 1L;

        TooManyValues() {
            super("more than " + MAX_VALUES + " values");
        }
    }

    /**
     * The YAML 1.2 core schema's plain scalars, plus merge keys. The patterns are named in full: Resolver's own
     * fields of the same simple names (YAML 1.1) would otherwise shadow them.
     */
    private static final class CoreSchemaResolver extends Resolver {
        @Override
        protected void addImplicitResolvers() {
            addImplicitResolver(Tag.BOOL, YamlText.CORE_BOOL, "tTfF");
            addImplicitResolver(Tag.INT, YamlText.CORE_INT, "-+0123456789");
            addImplicitResolver(Tag.FLOAT, YamlText.CORE_FLOAT, "-+0123456789.");
            addImplicitResolver(Tag.MERGE, Resolver.MERGE, "<");
            addImplicitResolver(Tag.NULL, Resolver.NULL, "~nN\0");
            addImplicitResolver(Tag.NULL, Resolver.EMPTY, null);
        }
    }
}

package grid.gateway.app;

import grid.gateway.app.access.AccessSink;
import grid.gateway.app.config.ConfigCheck;
import grid.gateway.app.config.ConfigException;
import grid.gateway.app.observe.QueuedLogHandler;
import grid.gateway.app.observe.UncaughtLogged;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;

/**
 * Command-line entry point (docs/design.md §12).
 *
 * <pre>
 *   grid-gateway --config FILE          serve (or GRID_GATEWAY_CONFIG=FILE); prints the bound ports
 *   grid-gateway --check-config FILE    print the effective config and exit 0, or each problem and exit 2
 *   grid-gateway --version              print the version and exit 0
 *   grid-gateway --help                 print the usage and exit 0
 * </pre>
 *
 * <p>{@code GRID_GATEWAY_LOG_FORMAT=json} makes the gateway's own log lines JSON objects, one a line, on stderr
 * ({@link JsonLogFormatter}); the access log is on stdout either way.
 *
 * <p>An invalid config, at start or under {@code --check-config}, exits 2 with each problem and its key path. SIGTERM
 * (or Ctrl-C) stops the gateway gracefully: readiness turns false, the listener keeps serving for
 * {@code server.shutdown_delay_ms}, then new connections are refused, and requests in flight get
 * {@code server.shutdown_grace_ms} to finish before they are cut.
 */
public final class Main {
    /** How long the shutdown waits for queued lines (access log, its own) to reach stdout. */
    private static final long ACCESS_LOG_FLUSH_MILLIS = 1_000;

    static final String USAGE = """
            usage: grid-gateway --config FILE        serve the grid described in FILE (or set GRID_GATEWAY_CONFIG)
                   grid-gateway --check-config FILE  validate FILE and print the effective config
                   grid-gateway --version            print the version
                   grid-gateway --help               print this help

            environment: GRID_GATEWAY_CONFIG=FILE       the config to serve when no argument is given
                         GRID_GATEWAY_LOG_FORMAT=json   the gateway's own log lines as JSON (default: text)
                         GRID_GATEWAY_ADMIN_HOST=ADDR   the admin listener's address, over server.admin_host""";

    private Main() {}

    /**
     * Runs the gateway.
     *
     * @param args command-line arguments
     */
    public static void main(String[] args) throws InterruptedException {
        Optional<Path> serve = configToServe(args, System.getenv());
        if (serve.isEmpty()) {
            System.exit(run(args, System.out, System.err));
            return;
        }
        // Serving: no thread that logs waits for stderr, nor any line for stdout (docs/failure-behaviour.md).
        QueuedLogHandler.replaceConsole(System.err);
        UncaughtLogged.install();
        JsonLogFormatter.installIf(String.valueOf(System.getenv("GRID_GATEWAY_LOG_FORMAT")));
        // Registered before the start: a SIGTERM while the gateway starts waits for it, then drains it.
        ShutdownOnSignal onSignal = new ShutdownOnSignal(Main::shutdown, ShutdownOnSignal.START_WAIT);
        Runtime.getRuntime().addShutdownHook(new Thread(onSignal, "grid-gateway-shutdown"));
        GatewayServer server;
        try {
            server = GatewayServer.start(serve.get(), GatewayRuntime.production(System.getenv()));
        } catch (ConfigException invalid) {
            onSignal.notStarted();
            invalid.problems().forEach(System.err::println);
            System.exit(2);
            return;
        } catch (RuntimeException | Error failed) {
            onSignal.notStarted();
            throw failed;
        }
        onSignal.started(server);
        say("grid-gateway listening port=" + server.port());
        say("grid-gateway admin port=" + server.adminPort());
        new CountDownLatch(1).await();
    }

    /**
     * SIGTERM or SIGINT: serve on for {@code server.shutdown_delay_ms}, drain for {@code server.shutdown_grace_ms},
     * then stop (see GatewayServer.shutdown).
     */
    private static void shutdown(GatewayServer server) {
        say("grid-gateway shutting down: " + server.requestsInFlight() + " requests in flight");
        GatewayServer.ShutdownReport report = server.shutdown();
        say("grid-gateway stopped: " + report.finished() + " requests finished while draining, " + report.cut()
                + " cut at the grace deadline");
        // Queued access lines and these go out in order; a stalled stdout loses what is left after the bound.
        AccessSink.stdout().flush(ACCESS_LOG_FLUSH_MILLIS);
    }

    /** A line on stdout, through the access log's queue: in order with access lines, never waited for. */
    private static void say(String line) {
        byte[] bytes = (line + "\n").getBytes(StandardCharsets.UTF_8);
        AccessSink.stdout().write(bytes, bytes.length);
    }

    /** The config file to serve, when the arguments ask to serve. */
    static Optional<Path> configToServe(String[] args, Map<String, String> env) {
        if (args.length == 2 && args[0].equals("--config")) {
            return Optional.of(Path.of(args[1]));
        }
        if (args.length == 0 && env.containsKey("GRID_GATEWAY_CONFIG")) {
            return Optional.of(Path.of(env.get("GRID_GATEWAY_CONFIG")));
        }
        return Optional.empty();
    }

    /** The version the build wrote into version.properties; {@code unknown} when run from unfiltered classes. */
    static String version() {
        Properties properties = new Properties();
        try (InputStream in = Main.class.getResourceAsStream("version.properties")) {
            if (in != null) {
                properties.load(in);
            }
        } catch (IOException e) {
            return "unknown";
        }
        String version = properties.getProperty("version", "unknown");
        return version.startsWith("${") ? "unknown" : version;
    }

    /** Every command but serving; returns the process exit code. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 2 && args[0].equals("--check-config")) {
            return ConfigCheck.run(Path.of(args[1]), out, err);
        }
        if (args.length == 1 && args[0].equals("--help")) {
            out.println(USAGE);
            return 0;
        }
        if (args.length == 1 && args[0].equals("--version")) {
            out.println("grid-gateway " + version());
            return 0;
        }
        err.println(USAGE);
        return 2;
    }
}

package grid.gateway.enginesim;

import io.helidon.common.configurable.Resource;
import io.helidon.common.tls.Tls;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

/**
 * Runs one engine simulator from the command line until the process is stopped:
 *
 * <pre>
 * java -cp … grid.gateway.enginesim.EngineSimulatorMain --port 8001 --name site-a --model demo-model \
 *     [--model other] [--host 127.0.0.1] [--slots 4] [--prefill-tps 8000] [--decode-tps 60] [--cache-blocks 4096]
 *     [--answer-tokens 8] [--block-size 16] [--max-model-len 32768] [--no-prompt-tokens-details]
 *     [--conversations] [--delete-stored-responses] [--keep-alive-after-rejection]
 *     [--engine-intake N] [--scrape-stall-at N --scrape-stall-ms MS]
 *     [--instant] [--tls-cert FILE --tls-key FILE] [--pod-hosts 127.0.0.1,127.0.0.2]
 * </pre>
 *
 * <p>Without options it answers as vLLM does ({@link ApiSurface#VLLM}); {@code --conversations} and
 * {@code --delete-stored-responses} add the OpenAI features vLLM lacks, {@code --no-prompt-tokens-details} drops
 * {@code cached_tokens} as vLLM without {@code --enable-prompt-tokens-details} does, and
 * {@code --keep-alive-after-rejection} keeps the connection open after a validation error. {@code --engine-intake}
 * and {@code --scrape-stall-*} set the {@link Frontend}.
 *
 * <p>With {@code --pod-hosts} it runs one pod of the cluster on each address, all on one port ({@link EnginePods}),
 * in place of one engine on {@code --host}.
 *
 * <p>With {@code --tls-cert} and {@code --tls-key} (PEM: a certificate chain, an unencrypted PKCS#8 key) it serves
 * HTTPS.
 *
 * <p>Prints {@code engine-simulator NAME listening port=N} once bound. Exits with status 2 on a usage error and 1
 * when the port cannot be bound.
 */
public final class EngineSimulatorMain {
    /** The options without a value that change the {@link ApiSurface}. */
    private static final Set<String> SURFACE_FLAGS = Set.of(
            "--no-prompt-tokens-details",
            "--keep-alive-after-rejection",
            "--conversations",
            "--delete-stored-responses");

    private EngineSimulatorMain() {}

    /** Starts the simulator (or its pods) and blocks until the JVM shuts down. */
    public static void main(String[] args) throws InterruptedException {
        EngineSettings settings;
        List<String> podHosts;
        try {
            podHosts = podHosts(args);
            settings = parse(withoutPodHosts(args));
        } catch (IllegalArgumentException e) {
            usage(System.err, String.valueOf(e.getMessage()));
            System.exit(2);
            return;
        }
        AutoCloseable running;
        int port;
        try {
            if (podHosts.isEmpty()) {
                EngineSimulator simulator = EngineSimulator.start(settings);
                running = simulator;
                port = simulator.port();
            } else {
                EnginePods pods = EnginePods.start(settings, podHosts);
                running = pods;
                port = pods.port();
            }
        } catch (IllegalStateException e) {
            System.err.println("engine-simulator " + settings.name() + ": " + e.getMessage());
            System.exit(1);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                running.close();
            } catch (Exception ignored) {
                // Stopping anyway.
            }
            stopped.countDown();
        }));
        System.out.println("engine-simulator " + settings.name() + " listening port=" + port
                + (podHosts.isEmpty() ? "" : " pods=" + String.join(",", podHosts)));
        System.out.flush();
        stopped.await();
    }

    /** The addresses after {@code --pod-hosts}, comma-separated; empty when absent. */
    static List<String> podHosts(String[] args) {
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--pod-hosts")) {
                if (i + 1 >= args.length || args[i + 1].isBlank()) {
                    throw new IllegalArgumentException("--pod-hosts needs a value");
                }
                return List.of(args[i + 1].split(","));
            }
        }
        return List.of();
    }

    private static String[] withoutPodHosts(String[] args) {
        List<String> rest = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--pod-hosts")) {
                i++;
            } else {
                rest.add(args[i]);
            }
        }
        return rest.toArray(String[]::new);
    }

    /** The settings {@code args} ask for. */
    static EngineSettings parse(String[] args) {
        EngineSettings.Builder builder = EngineSettings.builder();
        Path tlsCert = null;
        Path tlsKey = null;
        ApiSurface api = ApiSurface.VLLM;
        int[] frontend = {Integer.MAX_VALUE, Integer.MAX_VALUE, 0};
        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            if (flag.equals("--instant")) {
                builder.instant();
                continue;
            }
            if (SURFACE_FLAGS.contains(flag)) {
                api = surface(flag, api);
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(flag + " needs a value");
            }
            String value = args[++i];
            switch (flag) {
                case "--port" -> builder.port(integer(flag, value));
                case "--host" -> builder.host(value);
                case "--name" -> builder.name(value);
                case "--model" -> builder.model(value);
                case "--slots" -> builder.slots(integer(flag, value));
                case "--prefill-tps" -> builder.prefillTokensPerSecond(decimal(flag, value));
                case "--decode-tps" -> builder.decodeTokensPerSecond(decimal(flag, value));
                case "--cache-blocks" -> builder.cacheBlocks(integer(flag, value));
                case "--answer-tokens" -> builder.answerTokens(integer(flag, value));
                case "--block-size" -> builder.blockSize(integer(flag, value));
                case "--max-model-len" -> builder.maxModelLen(integer(flag, value));
                case "--engine-intake" -> frontend[0] = integer(flag, value);
                case "--scrape-stall-at" -> frontend[1] = integer(flag, value);
                case "--scrape-stall-ms" -> frontend[2] = integer(flag, value);
                case "--tls-cert" -> tlsCert = Path.of(value);
                case "--tls-key" -> tlsKey = Path.of(value);
                default -> throw new IllegalArgumentException("unknown option " + flag);
            }
        }
        if ((tlsCert == null) != (tlsKey == null)) {
            throw new IllegalArgumentException("--tls-cert and --tls-key go together");
        }
        if (tlsCert != null) {
            builder.tls(tls(tlsCert, tlsKey));
        }
        builder.api(api);
        if (frontend[0] != Integer.MAX_VALUE || frontend[1] != Integer.MAX_VALUE || frontend[2] != 0) {
            builder.frontend(new Frontend(frontend[0], frontend[1], Duration.ofMillis(frontend[2])));
        }
        return builder.build();
    }

    /** {@code api} changed by {@code flag}, one of {@link #SURFACE_FLAGS}. */
    private static ApiSurface surface(String flag, ApiSurface api) {
        return switch (flag) {
            case "--no-prompt-tokens-details" -> api.withoutPromptTokensDetails();
            case "--keep-alive-after-rejection" -> api.withoutResetAfterValidationError();
            case "--conversations" -> api.withConversations();
            case "--delete-stored-responses" -> api.withStoredResponseDelete();
            default -> throw new IllegalArgumentException("unknown option " + flag);
        };
    }

    /** HTTPS with the PEM certificate chain and key in these files, read with Helidon's PEM support. */
    static Tls tls(Path cert, Path key) {
        return Tls.builder()
                .privateKey(keys -> keys.pem(pem -> pem.key(Resource.create(key))))
                .privateKeyCertChain(keys -> keys.pem(pem -> pem.certChain(Resource.create(cert))))
                .build();
    }

    private static int integer(String flag, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + ": " + value + " (expected: an integer)", e);
        }
    }

    private static double decimal(String flag, String value) {
        try {
            return Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + ": " + value + " (expected: a number)", e);
        }
    }

    private static void usage(PrintStream err, String problem) {
        err.println("engine-simulator: " + problem);
        err.println("usage: EngineSimulatorMain --port N --name NAME --model M [--model M2] [--host H] [--slots N]"
                + " [--prefill-tps N] [--decode-tps N] [--cache-blocks N] [--answer-tokens N] [--block-size N]"
                + " [--max-model-len N] [--no-prompt-tokens-details] [--conversations] [--delete-stored-responses]"
                + " [--keep-alive-after-rejection] [--engine-intake N] [--scrape-stall-at N --scrape-stall-ms MS]"
                + " [--instant]"
                + " [--tls-cert FILE --tls-key FILE] [--pod-hosts H1,H2,...]");
    }
}

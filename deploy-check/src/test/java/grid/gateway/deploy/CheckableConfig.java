package grid.gateway.deploy;

import grid.gateway.app.config.ConfigCheck;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A rendered ConfigMap's config file, written so that the gateway's own {@code --check-config} can judge it outside
 * a pod. The one thing that differs from the pod is the tag key file: {@code gateway.tag_key_path} names the mounted
 * Secret, so it is pointed at a local copy of the key file: the Secret's content when the chart created it, else a
 * placeholder key standing for an existing Secret the chart cannot see; so is the route explainer's token file (a
 * placeholder token), and the Redis password file (a placeholder password); and so are the TLS files, pointed at the example files of {@code etc/tls/}. Every other byte is
 * as rendered.
 */
final class CheckableConfig {
    /** Stands for the content of an existing Secret; 32 bytes, one key. */
    static final String PLACEHOLDER_KEY = "placeholder-key-for-check-config\n";
    /** Stands for the route explainer's token Secret, which the chart only names. */
    static final String PLACEHOLDER_TOKEN = "placeholder-route-explain-token\n";

    /** Stands for the Redis password Secret, which the chart only names. */
    static final String PLACEHOLDER_PASSWORD = "placeholder-redis-password\n";

    private static final Pattern PASSWORD_FILE = Pattern.compile("(?m)^(\\s+password_file: ).*$");
    private static final Pattern TAG_KEY_PATH = Pattern.compile("(?m)^(  tag_key_path: ).*$");
    private static final Pattern TOKEN_FILE = Pattern.compile("(?m)^(    token_file: ).*$");
    /** A TLS file key and the file's name in its mounted Secret. */
    private static final Pattern TLS_FILE = Pattern.compile(
            "(?m)^(\\s+(?:cert_file|key_file|ca_file|client_ca_file): )\"[^\"]*/(tls\\.crt|tls\\.key|ca\\.crt)\"$");

    private CheckableConfig() {}

    /**
     * The outcome of {@code --check-config}.
     *
     * @param exitCode {@link ConfigCheck#VALID} or {@link ConfigCheck#INVALID}
     * @param out the effective config
     * @param err each problem on its own line
     * @param file the checked config file
     */
    record Result(int exitCode, String out, String err, Path file) {}

    /** Writes the config of {@code rendered} under {@code directory} and checks it. */
    static Result check(Rendered rendered, Path directory) {
        Path file = write(rendered, directory);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = ConfigCheck.run(
                file,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8), file);
    }

    /** Writes {@code config.yaml} (and {@code tag-key} when the config names one) under {@code directory}. */
    static Path write(Rendered rendered, Path directory) {
        try {
            Files.createDirectories(directory);
            String config = rendered.configYaml();
            Matcher keyPath = TAG_KEY_PATH.matcher(config);
            if (keyPath.find()) {
                Path key = directory.resolve("tag-key");
                Files.writeString(key, keyFile(rendered));
                config = keyPath.replaceFirst("$1" + Matcher.quoteReplacement(key.toString()));
            }
            Matcher tokenFile = TOKEN_FILE.matcher(config);
            if (tokenFile.find()) {
                Path tokens = directory.resolve("route-explain-token");
                Files.writeString(tokens, PLACEHOLDER_TOKEN);
                config = tokenFile.replaceFirst("$1" + Matcher.quoteReplacement(tokens.toString()));
            }
            Matcher passwordFile = PASSWORD_FILE.matcher(config);
            if (passwordFile.find()) {
                Path password = directory.resolve("redis-password");
                Files.writeString(password, PLACEHOLDER_PASSWORD);
                config = passwordFile.replaceFirst("$1" + Matcher.quoteReplacement(password.toString()));
            }
            config = localTlsFiles(config, directory);
            Path file = directory.resolve("config.yaml");
            Files.writeString(file, config);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * {@code config} with each TLS file path (a mounted kubernetes.io/tls Secret: {@code tls.crt}, {@code tls.key},
     * {@code ca.crt}) pointed at a local copy of the example files in {@code etc/tls/}, which stand for Secrets the
     * chart cannot see.
     */
    private static String localTlsFiles(String config, Path directory) throws IOException {
        Matcher file = TLS_FILE.matcher(config);
        if (!file.find()) {
            return config;
        }
        Path etc = DeployPaths.repository().resolve("etc/tls");
        Map<String, String> examples =
                Map.of("tls.crt", "east-gateway.crt.pem", "tls.key", "east-gateway.key.pem", "ca.crt", "grid-ca.pem");
        for (Map.Entry<String, String> example : examples.entrySet()) {
            Files.copy(
                    etc.resolve(example.getValue()),
                    directory.resolve(example.getKey()),
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        return file.replaceAll(m -> Matcher.quoteReplacement(m.group(1) + "\"" + directory.resolve(m.group(2)) + "\""));
    }

    /** The key file's content: the one value of the Secret the chart created, or the placeholder. */
    private static String keyFile(Rendered rendered) {
        if (rendered.ofKind("Secret").isEmpty()) {
            return PLACEHOLDER_KEY;
        }
        Map<?, ?> data = (Map<?, ?>) Rendered.at(rendered.only("Secret"), "data");
        if (data.size() != 1) {
            throw new AssertionError(rendered.name() + ": the tag key Secret holds " + data.size() + " files");
        }
        byte[] key =
                Base64.getDecoder().decode((String) data.values().iterator().next());
        return new String(key, StandardCharsets.UTF_8);
    }
}

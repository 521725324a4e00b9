package grid.gateway.app.config;

import grid.gateway.app.config.ListenerTls.ClientAuth;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Reads the TLS blocks ({@code server.tls}, {@code server.admin_tls}, {@code gateway.upstream.tls},
 * {@code sites[*].clusters[*].tls}) and the PEM files they name, so that a config whose certificate, key or CA file
 * is missing, unreadable, not PEM, or a key that is not its certificate's, is refused like any other invalid config:
 * at start, and at a reload (a rotation), where the TLS in force stays.
 *
 * <p>Stateless and thread-safe.
 */
final class TlsBlock {
    static final String DEVELOPMENT_FLAG = "development.allow_insecure_tls";
    private static final String FILE = "the path of a PEM file";
    private static final Pattern DNS_NAME = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?");

    private TlsBlock() {}

    /**
     * What a TLS block needs from its load.
     *
     * @param directory the config file's folder: relative paths resolve against it
     * @param files reads the PEM files (and remembers them for the watcher)
     * @param allowInsecure {@code development.allow_insecure_tls}
     */
    record Context(Path directory, KeyFileReader files, boolean allowInsecure) {}

    /** {@code development.allow_insecure_tls} from the root's {@code development} block; default false. */
    static boolean allowInsecure(YamlBlock root) {
        YamlBlock development = root.block("development");
        development.only("allow_insecure_tls");
        return development.bool("allow_insecure_tls", false);
    }

    /** The listener TLS under {@code parent.key}, or empty when absent or invalid (a problem). */
    static Optional<ListenerTls> listener(YamlBlock parent, String key, Context context) {
        if (!parent.has(key)) {
            return Optional.empty();
        }
        YamlBlock tls = parent.block(key);
        tls.only("cert_file", "key_file", "client_ca_file", "client_auth");
        int before = tls.problems().size();
        Optional<Path> certFile = path(tls, "cert_file", true, context);
        Optional<Path> keyFile = path(tls, "key_file", true, context);
        Optional<Path> caFile = path(tls, "client_ca_file", false, context);
        ClientAuth auth = clientAuth(tls, caFile.isPresent());
        // A block that is not a mapping was refused before the count began, and names no file.
        if (tls.problems().size() > before || certFile.isEmpty() || keyFile.isEmpty()) {
            return Optional.empty();
        }
        Fingerprint fingerprint = new Fingerprint("listener " + auth);
        Optional<Pair> pair = pair(tls, certFile.get(), keyFile.get(), context, fingerprint);
        Optional<List<X509Certificate>> trust = caFile.isEmpty()
                ? Optional.of(List.of())
                : certificates(tls, "client_ca_file", caFile.get(), context, fingerprint);
        if (pair.isEmpty() || trust.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new ListenerTls(
                certFile.get(),
                keyFile.get(),
                caFile,
                auth,
                new TlsMaterial(
                        pair.get().chain(),
                        Optional.of(java.util.Objects.requireNonNull(pair.get().key(), "a listener pair has its key")),
                        trust.get(),
                        fingerprint.digest())));
    }

    /** The upstream TLS under {@code parent.tls}, or empty when absent or invalid (a problem). */
    static Optional<UpstreamTls> upstream(YamlBlock parent, Context context) {
        if (!parent.has("tls")) {
            return Optional.empty();
        }
        YamlBlock tls = parent.block("tls");
        tls.only("ca_file", "cert_file", "key_file", "server_name", "insecure_skip_verify");
        int before = tls.problems().size();
        Optional<Path> caFile = path(tls, "ca_file", false, context);
        Optional<Path> certFile = path(tls, "cert_file", false, context);
        Optional<Path> keyFile = path(tls, "key_file", false, context);
        if (certFile.isPresent() != keyFile.isPresent() && tls.problems().size() == before) {
            String missing = certFile.isPresent() ? "key_file" : "cert_file";
            tls.problems().missing(tls.path(missing), "cert_file and key_file together, for mutual TLS");
        }
        Optional<String> serverName = serverName(tls);
        boolean insecure = insecure(tls, context, caFile.isPresent() || serverName.isPresent());
        if (tls.problems().size() > before) {
            return Optional.empty();
        }
        Fingerprint fingerprint = new Fingerprint("upstream " + serverName.orElse("") + " " + insecure);
        Optional<Pair> pair = certFile.isEmpty()
                ? Optional.of(Pair.NONE)
                : pair(tls, certFile.get(), keyFile.get(), context, fingerprint);
        Optional<List<X509Certificate>> trust = caFile.isEmpty()
                ? Optional.of(List.of())
                : certificates(tls, "ca_file", caFile.get(), context, fingerprint);
        if (pair.isEmpty() || trust.isEmpty()) {
            return Optional.empty();
        }
        TlsMaterial material = new TlsMaterial(
                pair.get().chain(), Optional.ofNullable(pair.get().key()), trust.get(), fingerprint.digest());
        return Optional.of(new UpstreamTls(caFile, certFile, keyFile, serverName, insecure, material));
    }

    /** A certificate chain and its key; {@link #NONE} when neither is configured. */
    private record Pair(
            List<X509Certificate> chain, @Nullable PrivateKey key) {
        static final Pair NONE = new Pair(List.of(), null);
    }

    private static Optional<Pair> pair(YamlBlock tls, Path certFile, Path keyFile, Context context, Fingerprint fp) {
        Optional<List<X509Certificate>> chain = certificates(tls, "cert_file", certFile, context, fp);
        Optional<PrivateKey> key = PemFiles.read(tls.path("key_file"), keyFile, context.files(), tls.problems())
                .map(fp::add)
                .flatMap(pem -> PemFiles.privateKey(pem, tls.problems()));
        if (chain.isEmpty() || key.isEmpty()) {
            return Optional.empty();
        }
        if (!PemFiles.matches(key.get(), chain.get().getFirst())) {
            tls.problems()
                    .addLine(PemFiles.at(tls.path("key_file"), keyFile)
                            + "is not the private key of the first certificate in " + Problems.show(certFile.toString())
                            + " (expected: the key and certificate of one pair)");
            return Optional.empty();
        }
        return Optional.of(new Pair(chain.get(), key.get()));
    }

    private static Optional<List<X509Certificate>> certificates(
            YamlBlock tls, String key, Path file, Context context, Fingerprint fp) {
        return PemFiles.read(tls.path(key), file, context.files(), tls.problems())
                .map(fp::add)
                .flatMap(pem -> PemFiles.certificates(pem, tls.problems()));
    }

    /** A file path, relative to the config's folder; empty when absent (a problem when required) or invalid. */
    private static Optional<Path> path(YamlBlock tls, String key, boolean required, Context context) {
        Optional<String> text = required ? tls.requiredString(key, FILE) : tls.string(key, FILE);
        if (text.isEmpty()) {
            return Optional.empty();
        }
        try {
            if (!text.get().isBlank()) {
                return Optional.of(context.directory().resolve(text.get()).normalize());
            }
        } catch (InvalidPathException e) {
            // Reported below.
        }
        tls.problems().add(tls.path(key), text.get(), FILE);
        return Optional.empty();
    }

    private static ClientAuth clientAuth(YamlBlock tls, boolean hasCa) {
        String expected = "required or optional, with client_ca_file";
        Optional<String> word = tls.string("client_auth", expected);
        if (word.isEmpty()) {
            // A CA for client certificates means the operator wants them: asked for, and required.
            return hasCa ? ClientAuth.REQUIRED : ClientAuth.NONE;
        }
        if (!hasCa) {
            tls.problems().add(tls.path("client_auth"), word.get(), "no client_auth without client_ca_file");
            return ClientAuth.NONE;
        }
        for (ClientAuth auth : List.of(ClientAuth.REQUIRED, ClientAuth.OPTIONAL)) {
            if (auth.word().equals(word.get())) {
                return auth;
            }
        }
        tls.problems().add(tls.path("client_auth"), word.get(), expected);
        return ClientAuth.REQUIRED;
    }

    private static Optional<String> serverName(YamlBlock tls) {
        String expected = "a DNS name the cluster's certificate holds";
        Optional<String> name = tls.string("server_name", expected);
        if (name.isPresent() && !DNS_NAME.matcher(name.get()).matches()) {
            tls.problems().add(tls.path("server_name"), name.get(), expected);
            return Optional.empty();
        }
        return name;
    }

    private static boolean insecure(YamlBlock tls, Context context, boolean checksSomething) {
        boolean insecure = tls.bool("insecure_skip_verify", false);
        if (insecure && !context.allowInsecure()) {
            tls.problems()
                    .add(
                            tls.path("insecure_skip_verify"),
                            true,
                            "false; certificate checks can be skipped only in development, with " + DEVELOPMENT_FLAG
                                    + ": true");
            return false;
        }
        if (insecure && checksSomething) {
            tls.problems()
                    .add(
                            tls.path("insecure_skip_verify"),
                            true,
                            "false when ca_file or server_name is set: those settings check what it skips");
            return false;
        }
        return insecure;
    }

    /** A digest of a TLS block's settings and the bytes of its files, in the order read. */
    private static final class Fingerprint {
        private final List<String> parts = new ArrayList<>();

        Fingerprint(String settings) {
            parts.add(FileFingerprint.of(settings.getBytes(StandardCharsets.UTF_8)));
        }

        PemFiles.Named add(PemFiles.Named pem) {
            parts.add(FileFingerprint.of(pem.bytes()));
            return pem;
        }

        String digest() {
            return FileFingerprint.of(String.join(",", parts).getBytes(StandardCharsets.UTF_8));
        }
    }
}

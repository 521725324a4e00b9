package grid.gateway.app.config;

import io.helidon.common.configurable.Resource;
import io.helidon.common.pki.Keys;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;

/**
 * Reads the PEM files a TLS block names, with Helidon's {@link Keys}: certificates ({@code BEGIN CERTIFICATE}) and
 * PKCS#8 private keys ({@code BEGIN PRIVATE KEY}). Problems name the key path and the file, never key bytes.
 *
 * <p>Stateless and thread-safe.
 */
final class PemFiles {
    private PemFiles() {}

    /** A file's bytes and the key path that named it. */
    record Named(String keyPath, Path file, byte[] bytes) {}

    /** The file that {@code keyPath} names, read through {@code reader}; empty after recording the problem. */
    static Optional<Named> read(String keyPath, Path file, KeyFileReader reader, Problems problems) {
        try {
            return Optional.of(new Named(keyPath, file, reader.readPem(file)));
        } catch (IOException e) {
            problems.addLine(at(keyPath, file) + "cannot read the file (" + ConfigFiles.describe(e) + ")");
            return Optional.empty();
        }
    }

    /** The certificates in {@code pem}, at least one; empty after recording the problem. */
    static Optional<List<X509Certificate>> certificates(Named pem, Problems problems) {
        List<X509Certificate> certs;
        try {
            certs = Keys.builder()
                    .pem(p -> p.certificates(resource(pem)))
                    .build()
                    .certs();
        } catch (RuntimeException e) {
            certs = List.of();
        }
        if (certs.isEmpty()) {
            problems.addLine(at(pem.keyPath(), pem.file()) + "holds no PEM certificate (expected: BEGIN CERTIFICATE)");
            return Optional.empty();
        }
        return Optional.of(certs);
    }

    /** The private key in {@code pem}; empty after recording the problem. */
    static Optional<PrivateKey> privateKey(Named pem, Problems problems) {
        Optional<PrivateKey> key;
        try {
            key = Keys.builder().pem(p -> p.key(resource(pem))).build().privateKey();
        } catch (RuntimeException e) {
            key = Optional.empty();
        }
        if (key.isEmpty()) {
            problems.addLine(at(pem.keyPath(), pem.file())
                    + "holds no readable private key (expected: an unencrypted PKCS#8 PEM key, BEGIN PRIVATE KEY)");
        }
        return key;
    }

    /**
     * Whether {@code key} is the private key of {@code certificate}: it signs a challenge that the certificate's
     * public key verifies (the JDK's signature check, so any key type the JDK knows works).
     */
    static boolean matches(PrivateKey key, X509Certificate certificate) {
        PublicKey publicKey = certificate.getPublicKey();
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            default -> key.getAlgorithm(); // Ed25519 and Ed448 sign under their own names
        };
        byte[] challenge = "grid gateway key check".getBytes(StandardCharsets.US_ASCII);
        try {
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(challenge);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(publicKey);
            verifier.update(challenge);
            return verifier.verify(signature);
        } catch (GeneralSecurityException | RuntimeException e) {
            return false;
        }
    }

    /** The start of a problem about {@code file}: {@code server.tls.cert_file: "/x.pem": }. */
    static String at(String keyPath, Path file) {
        return keyPath + ": " + Problems.show(file.toString()) + ": ";
    }

    private static Resource resource(Named pem) {
        return Resource.create(pem.file().toString(), pem.bytes());
    }
}

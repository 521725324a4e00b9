package grid.gateway.app.config;

import static java.util.Objects.requireNonNull;

import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;

/**
 * The certificates and key read from one TLS block's PEM files, checked: the key matches the first certificate of
 * its chain, and every file named held what it should.
 *
 * <p>Thread-safe (immutable; the JDK's key and certificate objects are).
 *
 * @param certChain {@code cert_file}: this side's certificate first, then its intermediates; empty when not set
 * @param privateKey {@code key_file}: the key of {@code certChain}'s first certificate; empty when not set
 * @param trust {@code ca_file} or {@code client_ca_file}: the certificates the peer's chain must lead to; empty
 *     when not set
 * @param fingerprint a digest of the files' bytes and the block's settings: equal fingerprints, same TLS; never key
 *     bytes
 */
public record TlsMaterial(
        List<X509Certificate> certChain,
        Optional<PrivateKey> privateKey,
        List<X509Certificate> trust,
        String fingerprint) {
    public TlsMaterial {
        certChain = List.copyOf(certChain);
        requireNonNull(privateKey, "privateKey");
        trust = List.copyOf(trust);
        requireNonNull(fingerprint, "fingerprint");
    }

    /** Never the key: a record's default would print it. */
    @Override
    public String toString() {
        return "TlsMaterial[" + certChain.size() + " certificates, " + (privateKey.isPresent() ? "a key" : "no key")
                + ", " + trust.size() + " trusted, " + fingerprint + "]";
    }
}

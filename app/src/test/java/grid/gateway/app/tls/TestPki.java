package grid.gateway.app.tls;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.jspecify.annotations.Nullable;

/**
 * Test fixture: a private certificate authority made at test time, and the certificates the TLS tests need, written
 * as PEM files (certificates, PKCS#8 keys) into a folder: a server certificate for {@code localhost} and
 * {@code 127.0.0.1}, a client certificate, an expired server certificate, one for another name, and one from a second
 * CA that the first does not trust. EC P-256 keys: fast to make.
 */
public final class TestPki {
    private static final AtomicLong SERIAL = new AtomicLong(1);

    private final Path dir;
    private final Authority authority;

    /** A certificate and its key, as PEM files. */
    public record Pair(Path cert, Path key, X509Certificate certificate, KeyPair keys) {
        /**
         * The server block's {@code tls} serving this pair, indented two spaces as {@code GatewayHarness.config} takes
         * the server block's lines.
         */
        public String serverTls() {
            return "  tls:\n    cert_file: " + cert + "\n    key_file: " + key + "\n";
        }
    }

    private record Authority(X500Name name, KeyPair keys, X509Certificate certificate, Path file) {}

    private TestPki(Path dir, Authority authority) {
        this.dir = dir;
        this.authority = authority;
    }

    /** A new CA whose certificate is written to {@code dir/<name>-ca.pem}. */
    public static TestPki create(Path dir, String name) {
        KeyPair keys = keyPair();
        X500Name subject = new X500Name("CN=" + name + " test CA");
        Instant now = Instant.now();
        X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                subject,
                serial(),
                Date.from(now.minus(Duration.ofHours(1))),
                Date.from(now.plus(Duration.ofDays(2))),
                subject,
                keys.getPublic());
        try {
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        X509Certificate certificate = sign(builder, keys);
        Path file = dir.resolve(name + "-ca.pem");
        write(file, pem("CERTIFICATE", encoded(certificate)));
        return new TestPki(dir, new Authority(subject, keys, certificate, file));
    }

    /** The CA's certificate as a PEM file: a {@code ca_file} or {@code client_ca_file}. */
    public Path caFile() {
        return authority.file();
    }

    /** The CA's certificate. */
    public X509Certificate caCertificate() {
        return authority.certificate();
    }

    /** A certificate valid now for {@code localhost} and {@code 127.0.0.1}, for servers and clients alike. */
    public Pair issue(String name) {
        Instant now = Instant.now();
        return issue(name, now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(1)), "localhost", "127.0.0.1");
    }

    /** A certificate that expired an hour ago, for {@code localhost} and {@code 127.0.0.1}. */
    public Pair expired(String name) {
        Instant now = Instant.now();
        return issue(name, now.minus(Duration.ofDays(2)), now.minus(Duration.ofHours(1)), "localhost", "127.0.0.1");
    }

    /** A certificate valid now for {@code dnsName} only. */
    public Pair forName(String name, String dnsName) {
        Instant now = Instant.now();
        return issue(name, now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(1)), dnsName);
    }

    /**
     * An SSL context that trusts this CA only and shows {@code own}: for test clients of a TLS listener that asks for
     * a certificate, and for test servers.
     */
    public SSLContext context(Pair own) {
        return contextOf(own);
    }

    /** An SSL context that trusts this CA only and shows no certificate. */
    public SSLContext trustOnly() {
        return contextOf(null);
    }

    private SSLContext contextOf(@Nullable Pair own) {
        try {
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            char[] password = "test".toCharArray();
            if (own != null) {
                keys.setKeyEntry("own", own.keys().getPrivate(), password, new X509Certificate[] {
                    own.certificate(), authority.certificate()
                });
            }
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, password);
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", authority.certificate());
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private Pair issue(String name, Instant notBefore, Instant notAfter, String... hosts) {
        KeyPair keys = keyPair();
        X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                authority.name(),
                serial(),
                Date.from(notBefore),
                Date.from(notAfter),
                new X500Name("CN=" + name),
                keys.getPublic());
        GeneralName[] names = new GeneralName[hosts.length];
        for (int i = 0; i < hosts.length; i++) {
            boolean ip = hosts[i].chars().allMatch(c -> c == '.' || Character.isDigit(c));
            names[i] = new GeneralName(ip ? GeneralName.iPAddress : GeneralName.dNSName, hosts[i]);
        }
        try {
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names));
            builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(new KeyPurposeId[] {
                KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth
            }));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        X509Certificate certificate = sign(builder, authority.keys());
        Path cert = dir.resolve(name + ".crt.pem");
        Path key = dir.resolve(name + ".key.pem");
        write(cert, pem("CERTIFICATE", encoded(certificate)));
        write(key, pem("PRIVATE KEY", keys.getPrivate().getEncoded()));
        return new Pair(cert, key, certificate, keys);
    }

    /** PEM text: a header, the bytes in Base64 lines of 64, a footer. */
    public static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                        .encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    private static KeyPair keyPair() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"));
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair issuer) {
        try {
            return new JcaX509CertificateConverter()
                    .getCertificate(
                            builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuer.getPrivate())));
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] encoded(X509Certificate certificate) {
        try {
            return certificate.getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static BigInteger serial() {
        return BigInteger.valueOf(System.nanoTime()).shiftLeft(16).add(BigInteger.valueOf(SERIAL.getAndIncrement()));
    }

    private static void write(Path file, String text) {
        try {
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

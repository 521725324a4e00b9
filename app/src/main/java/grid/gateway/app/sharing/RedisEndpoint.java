package grid.gateway.app.sharing;

import grid.gateway.app.config.RegularFiles;
import grid.gateway.app.config.SharingSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import javax.net.ssl.SSLSocketFactory;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;

/**
 * Opens connections to the configured Redis: host and port, TLS for {@code rediss://}, the database number from the
 * path, the ACL user from the URL and the password from {@code password_file} (read once, at start).
 *
 * <p>Every command has a socket timeout, every write a deadline of its own ({@link WriteDeadline}: the socket
 * timeout bounds each read only), and every reply owed a deadline too ({@link ReplyDeadline}: a reply trickled a byte
 * within each read timeout is cut at {@link #REPLY_MILLIS}), so a Redis that hangs, stops reading or trickles costs a
 * sharing thread a reconnect, never a request.
 * Every reply is checked as it arrives ({@link ReplyBounds}), on plain and TLS connections alike, so a reply that
 * announces more than the gateway ever reads costs a reconnect too, never its allocation.
 *
 * <p>Thread-safe (immutable); each {@link Jedis} it opens belongs to one thread.
 */
final class RedisEndpoint {
    static final int DEFAULT_PORT = 6379;
    /** Connect and command timeout: generous for a site-local Redis, short enough to notice one that hangs. */
    static final int TIMEOUT_MILLIS = 2_000;
    /**
     * How long the replies owed may take, from the command that began owing them until the last arrived whole: the
     * reader's XREAD blocks {@value SharingReader#BLOCK_MILLIS} ms, and the largest reply read ({@link
     * ReplyBounds#MAX_REPLY}, 64 MiB) takes about 5 s at 100 Mbit/s.
     */
    static final int REPLY_MILLIS = 30_000;

    private final HostAndPort address;
    private final JedisClientConfig config;
    /** The longest one write may wait for Redis to take bytes ({@link WriteDeadline}). */
    private final long writeMillis;
    /** The longest the replies owed may take ({@link ReplyDeadline}). */
    private final long replyMillis;

    /** The largest password file read: Redis passwords are short; a file larger is the wrong file. */
    static final int PASSWORD_LIMIT = SharingSettings.PASSWORD_LIMIT;

    private RedisEndpoint(HostAndPort address, JedisClientConfig config, long writeMillis, long replyMillis) {
        this.address = address;
        this.config = config;
        this.writeMillis = writeMillis;
        this.replyMillis = replyMillis;
    }

    /**
     * The endpoint {@code settings} name.
     *
     * @throws UncheckedIOException when the password file cannot be read
     */
    static RedisEndpoint of(SharingSettings settings) {
        return of(settings, null);
    }

    /**
     * As {@link #of(SharingSettings)}, with TLS through {@code tls} (null: the JVM's default, which trusts the JVM's CA
     * certificates; tests pass one that trusts their own CA).
     */
    static RedisEndpoint of(SharingSettings settings, @Nullable SSLSocketFactory tls) {
        return of(settings, tls, TIMEOUT_MILLIS);
    }

    /** As {@link #of(SharingSettings, SSLSocketFactory)}, each write waiting at most {@code writeMillis} (tests). */
    static RedisEndpoint of(SharingSettings settings, @Nullable SSLSocketFactory tls, long writeMillis) {
        return of(settings, tls, writeMillis, REPLY_MILLIS);
    }

    /** As {@link #of(SharingSettings, SSLSocketFactory, long)}, the replies owed within {@code replyMillis} (tests). */
    static RedisEndpoint of(
            SharingSettings settings, @Nullable SSLSocketFactory tls, long writeMillis, long replyMillis) {
        URI url = settings.redisUrl().orElseThrow(() -> new IllegalArgumentException("no redis_url"));
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(TIMEOUT_MILLIS)
                .socketTimeoutMillis(TIMEOUT_MILLIS)
                .blockingSocketTimeoutMillis(SharingReader.BLOCK_MILLIS + TIMEOUT_MILLIS)
                .clientName("grid-gateway-prefix-sharing")
                // Streams need nothing of RESP3; the server's default protocol, without the warning Jedis prints when
                // it would try to negotiate one.
                .serverDefaultProtocol()
                .ssl("rediss".equalsIgnoreCase(url.getScheme()))
                .database(database(url));
        Optional.ofNullable(url.getUserInfo()).filter(u -> !u.isEmpty()).ifPresent(config::user);
        settings.passwordFile().map(RedisEndpoint::password).ifPresent(config::password);
        // Always the factory that remembers the plain socket under the TLS one (WriteDeadline closes it).
        config.sslSocketFactory(new LayeredSocketFactory(tls));
        int port = url.getPort() < 0 ? DEFAULT_PORT : url.getPort();
        return new RedisEndpoint(new HostAndPort(url.getHost(), port), config.build(), writeMillis, replyMillis);
    }

    /** A new connection, connected and named to Redis (with the database and credentials set up) as it is made. */
    Jedis open() {
        return new Jedis(new BoundedSocketFactory(address, config, writeMillis, replyMillis), config);
    }

    private static int database(URI url) {
        String path = url.getPath() == null ? "" : url.getPath().replace("/", "");
        return path.isEmpty() ? 0 : Integer.parseInt(path);
    }

    private static String password(Path file) {
        try {
            // Read up to a bound, and only a regular file: a path to the wrong file (a log, a device) must not fill
            // the heap at start, nor a named pipe block it.
            byte[] bytes = RegularFiles.read(file, PASSWORD_LIMIT);
            // A Secret mounted as a file often ends with a newline that is not part of the password.
            return new String(bytes, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the Redis password_file " + file, e);
        }
    }
}

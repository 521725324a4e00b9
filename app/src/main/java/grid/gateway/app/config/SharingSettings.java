package grid.gateway.app.config;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The {@code plugins.grid_site_route.prefix_affinity.sharing} block ({@code docs/prefix-sharing.md}):
 * where replicas share their prefix-memory confirmations and drops. Read at start only: a reload that changes it
 * takes effect at the next start, like the listener ports.
 *
 * <p>Thread-safe (immutable).
 *
 * @param redisUrl {@code redis_url}: {@code redis://} or {@code rediss://} (TLS), host, port, database number as the
 *     path, an optional ACL user, never a password; empty: no sharing (the seed's behaviour)
 * @param stream {@code stream}: the Redis stream every replica of the site writes and reads
 * @param passwordFile {@code password_file}: a file holding the Redis password (a mounted Secret), relative to the
 *     config file's directory
 * @param warmStart {@code warm_start_ms}: how long a starting replica replays the stream before it serves anyway
 * @param shareBacklog {@code share_backlog}: the replicas also share their sends, each prompt's uncached prefill
 *     seconds, for the prefill backlogs of {@code load.order_by: expected_wait} (default false: not published, and
 *     peers' sends skipped)
 * @param confirmWait {@code confirm_wait_ms}: how long a confirmation may hold its answer until every live peer
 *     applied it (default 0: never)
 */
public record SharingSettings(
        Optional<URI> redisUrl,
        String stream,
        Optional<Path> passwordFile,
        Duration warmStart,
        boolean shareBacklog,
        Duration confirmWait) {
    /** The default stream name. */
    /** The largest Redis password file read, in bytes: a path to the wrong file must not fill the heap. */
    public static final int PASSWORD_LIMIT = 4096;

    public static final String DEFAULT_STREAM = "grid-prefix-memory";
    /** The default warm-start bound. */
    public static final Duration DEFAULT_WARM_START = Duration.ofSeconds(5);

    public SharingSettings {
        requireNonNull(redisUrl, "redisUrl");
        requireNonNull(stream, "stream");
        requireNonNull(passwordFile, "passwordFile");
        requireNonNull(warmStart, "warmStart");
        requireNonNull(confirmWait, "confirmWait");
    }

    /** No sharing. */
    public static SharingSettings none() {
        return new SharingSettings(
                Optional.empty(), DEFAULT_STREAM, Optional.empty(), DEFAULT_WARM_START, false, Duration.ZERO);
    }

    /** Whether a Redis URL is configured. */
    public boolean enabled() {
        return redisUrl.isPresent();
    }
}

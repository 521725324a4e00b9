package grid.gateway.app.config;

import static grid.gateway.app.config.TestConfigs.MINIMAL;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code plugins.grid_site_route.prefix_affinity.sharing}: absent means no sharing; a password never sits in the URL. */
class SharingBlockTest {
    private static final String PATH = "plugins.grid_site_route.prefix_affinity.sharing";

    @TempDir
    Path dir;

    private static String sharing(String lines) {
        return "plugins:\n  grid_site_route:\n    prefix_affinity:\n      sharing:\n" + TestConfigs.indent(lines, 8)
                + MINIMAL;
    }

    @Test
    void absent_noSharing_defaultsFilledIn() {
        SharingSettings settings = ConfigLoader.load(TestConfigs.write(dir, "gateway.yaml", MINIMAL))
                .config()
                .sharing();
        assertThat(settings).isEqualTo(SharingSettings.none());
        assertThat(settings.enabled()).isFalse();
        assertThat(settings.stream()).isEqualTo("grid-prefix-memory");
        assertThat(settings.warmStart()).isEqualTo(Duration.ofSeconds(5));
        assertThat(settings.shareBacklog()).isFalse();
    }

    @Test
    void shareBacklog_readAsABoolean() {
        String on = sharing("redis_url: redis://redis.site\nshare_backlog: true\n");
        assertThat(ConfigLoader.load(TestConfigs.write(dir, "gateway.yaml", on))
                        .config()
                        .sharing()
                        .shareBacklog())
                .isTrue();
        assertThat(TestConfigs.problems(dir, sharing("share_backlog: \"yes\"\n")))
                .anySatisfy(p -> assertThat(p).startsWith(PATH + ".share_backlog"));
    }

    @Test
    void written_everyKeyRead_passwordFileRelativeToTheConfig() {
        TestConfigs.write(dir, "secrets/redis", "secret\n");
        String yaml = sharing("redis_url: rediss://gateway@redis.site:6380/2\nstream: east-memory\n"
                + "password_file: secrets/redis\nwarm_start_ms: 0\n");
        SharingSettings settings = ConfigLoader.load(TestConfigs.write(dir, "gateway.yaml", yaml))
                .config()
                .sharing();
        assertThat(settings.redisUrl()).contains(URI.create("rediss://gateway@redis.site:6380/2"));
        assertThat(settings.stream()).isEqualTo("east-memory");
        assertThat(settings.passwordFile()).isEqualTo(Optional.of(dir.resolve("secrets/redis")));
        assertThat(settings.warmStart()).isZero();
    }

    @Test
    void passwordFile_missingOrTooLarge_refusedNamingTheKeyAndThePath() {
        Path missing = dir.resolve("secrets/absent");
        Path large = TestConfigs.write(dir, "secrets/large", "x".repeat(SharingSettings.PASSWORD_LIMIT + 1));

        assertThat(TestConfigs.problems(dir, sharing("redis_url: redis://redis.site\npassword_file: secrets/absent\n")))
                .containsExactly(PATH + ".password_file: \"" + missing
                        + "\": cannot read the Redis password file (no such file)");
        assertThat(TestConfigs.problems(dir, sharing("redis_url: redis://redis.site\npassword_file: secrets/large\n")))
                .containsExactly(PATH + ".password_file: \"" + large
                        + "\": cannot read the Redis password file (larger than 4096 bytes)");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "http://redis:6379",
        "redis://:secret@redis:6379/0",
        "redis://user:secret@redis:6379/0",
        "redis:///0",
        "redis://redis:6379/db",
        "redis://redis:6379/0?timeout=1",
        "redis://redis:/0",
        "redis://redis:0",
    })
    void redisUrl_notARedisUrlOrWithAPassword_refusedWithoutEchoingIt(String url) {
        assertThat(TestConfigs.problems(dir, sharing("redis_url: \"" + url + "\"\n")))
                .containsExactly(PATH + ".redis_url: expected a redis:// or rediss:// URL with a host, an optional"
                        + " port and database number, and no password (use password_file)");
    }

    @Test
    void streamAndWarmStart_outOfRange_refused() {
        assertThat(TestConfigs.problems(dir, sharing("stream: \"a b\"\nwarm_start_ms: -1\n")))
                .containsExactly(
                        PATH + ".stream: \"a b\" (expected: a Redis key of letters, digits and _.:{}-)",
                        PATH + ".warm_start_ms: -1 (expected: 0..600000)");
        assertThat(TestConfigs.problems(dir, sharing("redis_url: redis://r\nport: 1\n")))
                .hasSize(1)
                .first()
                .asString()
                .startsWith(PATH + ".port");
    }
}

package grid.gateway.app.config;

import static grid.gateway.app.config.TestConfigs.KEY_ONE;
import static grid.gateway.app.config.TestConfigs.KEY_TWO;
import static grid.gateway.app.config.TestConfigs.withGateway;
import static grid.gateway.app.config.TestConfigs.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import grid.gateway.routing.tag.TagKeyRing;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gateway.tag_key_path}: read, verified, resolved, and never shown. */
class TagKeyFileTest {
    private static final String SHORT_KEY = "short-secret";

    @TempDir
    Path dir;

    @Test
    void load_keyFile_ringHoldsEveryNonEmptyLine() {
        Path key = write(dir, "tag-key", KEY_ONE + "\n\n" + KEY_TWO + "\n");

        GatewaySnapshot snapshot = ConfigLoader.load(write(dir, "config.yaml", withGateway("tag_key_path: " + key)));

        assertThat(snapshot.keyRing().keyCount()).isEqualTo(2);
        assertThat(snapshot.config().gateway().tagKeyPath()).contains(key);
    }

    @Test
    void load_keyFileSignsLikeTheRingItHolds() {
        Path key = write(dir, "tag-key", KEY_ONE + "\n");

        TagKeyRing ring = ConfigLoader.load(write(dir, "config.yaml", withGateway("tag_key_path: " + key)))
                .keyRing();

        assertThat(ring.sign("east", "0a1b2c3d"))
                .isEqualTo(TagKeyRing.parse(KEY_ONE).sign("east", "0a1b2c3d"));
    }

    @Test
    void load_keyFileBeginningWithAByteOrderMark_theMarkIsNoPartOfTheFirstKey() throws IOException {
        // An editor that saves UTF-8 "with signature" puts EF BB BF before the first key: kept, it would change the
        // signing key, and every id signed with it would answer 404.
        Path key = Files.write(
                dir.resolve("tag-key"),
                ("\uFEFF" + KEY_ONE + "\r\n" + KEY_TWO + "\r\n").getBytes(StandardCharsets.UTF_8));

        TagKeyRing ring = ConfigLoader.load(write(dir, "config.yaml", withGateway("tag_key_path: " + key)))
                .keyRing();

        assertThat(ring.keyCount()).isEqualTo(2);
        assertThat(ring.sign("east", "0a1b2c3d"))
                .isEqualTo(TagKeyRing.parse(KEY_ONE).sign("east", "0a1b2c3d"));
    }

    @Test
    void load_noTagKeyPath_ringHasNoKey() {
        GatewaySnapshot snapshot = ConfigLoader.load(write(dir, "config.yaml", TestConfigs.MINIMAL));

        assertThat(snapshot.keyRing().hasKey()).isFalse();
        assertThat(snapshot.config().gateway().tagKeyPath()).isEmpty();
    }

    @Test
    void load_relativeTagKeyPath_resolvedAgainstTheConfigDirectory() {
        Path key = write(dir.resolve("secrets"), "tag-key", KEY_ONE);

        GatewaySnapshot snapshot = ConfigLoader.load(
                write(dir.resolve("conf"), "config.yaml", withGateway("tag_key_path: ../secrets/tag-key")));

        assertThat(snapshot.config().gateway().tagKeyPath()).isEqualTo(Optional.of(key.toAbsolutePath()));
        assertThat(snapshot.keyRing().keyCount()).isEqualTo(1);
    }

    @Test
    void load_keyFileMissing_refusedNamingThePath() {
        Path key = dir.resolve("absent");

        assertThat(TestConfigs.problems(dir, withGateway("tag_key_path: " + key)))
                .containsExactly("gateway.tag_key_path: \"" + key + "\": cannot read the tag key file (no such file)");
    }

    @Test
    void load_keyFileADirectory_refused() throws IOException {
        Path key = Files.createDirectory(dir.resolve("keys"));

        assertThat(TestConfigs.problems(dir, withGateway("tag_key_path: " + key)))
                .singleElement()
                .asString()
                .startsWith("gateway.tag_key_path: \"" + key + "\": cannot read the tag key file (");
    }

    @Test
    void load_keyShorterThan16Bytes_refusedNamingTheLineNotTheKey() {
        Path key = write(dir, "tag-key", KEY_ONE + "\n" + SHORT_KEY + "\n");

        List<String> problems = TestConfigs.problems(dir, withGateway("tag_key_path: " + key));

        assertThat(problems)
                .containsExactly("gateway.tag_key_path: \"" + key + "\": tag key file line 2: key is shorter than 16"
                        + " bytes (expected: at least 16)");
        assertThat(String.join("\n", problems)).doesNotContain(SHORT_KEY).doesNotContain(KEY_ONE);
    }

    @Test
    void load_keyFileEmpty_refused() {
        Path key = write(dir, "tag-key", "\n  \n");

        assertThat(TestConfigs.problems(dir, withGateway("tag_key_path: " + key)))
                .containsExactly("gateway.tag_key_path: \"" + key + "\": tag key file holds no key (expected: at"
                        + " least one non-empty line)");
    }

    @Test
    void load_keyFileNotUtf8_refused() throws IOException {
        Path key = Files.write(dir.resolve("tag-key"), new byte[] {'k', (byte) 0xc3, (byte) 0x28, 'e', 'y'});

        assertThat(TestConfigs.problems(dir, withGateway("tag_key_path: " + key)))
                .containsExactly("gateway.tag_key_path: \"" + key + "\": the tag key file is not UTF-8 text"
                        + " (expected: one key a line)");
    }

    @Test
    void load_keyFileTooLarge_refused() {
        Path key = write(dir, "tag-key", "k".repeat(ConfigFiles.KEY_LIMIT + 1));

        assertThat(TestConfigs.problems(dir, withGateway("tag_key_path: " + key)))
                .containsExactly("gateway.tag_key_path: \"" + key + "\": cannot read the tag key file (larger than"
                        + " 65536 bytes)");
    }

    @Test
    void load_validKeyAndOtherProblems_noProblemShowsTheKey() {
        Path key = write(dir, "tag-key", KEY_ONE + "\n" + KEY_TWO + "\n");
        String yaml = withGateway("tag_key_path: " + key + "\nrole: " + KEY_ONE.substring(0, 4));

        ConfigException e =
                catchThrowableOfType(ConfigException.class, () -> ConfigLoader.load(write(dir, "config.yaml", yaml)));

        assertThat(e.problems()).hasSize(1);
        assertThat(e.toString()).doesNotContain(KEY_ONE).doesNotContain(KEY_TWO);
    }

    @Test
    void snapshot_withKey_toStringShowsNoKey() {
        Path key = write(dir, "tag-key", KEY_ONE + "\n");

        GatewaySnapshot snapshot = ConfigLoader.load(write(dir, "config.yaml", withGateway("tag_key_path: " + key)));

        assertThat(snapshot.toString()).doesNotContain(KEY_ONE).contains("TagKeyRing[keys=1]");
    }
}

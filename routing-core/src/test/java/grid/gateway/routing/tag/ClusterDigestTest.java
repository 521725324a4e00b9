package grid.gateway.routing.tag;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Known answers for the cluster digest (docs/design.md §5). Each value is the first 8 hex digits of {@code printf '%s' NAME |
 * sha256sum}; a change to any of them breaks every tag in circulation.
 */
class ClusterDigestTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"east-a, 1ef772aa", "west-b, 8bcc2dc9", "'', e3b0c442", "vLLM pool é, 4290ee86"})
    void of_clusterName_goldenDigest(String clusterName, String digest) {
        assertThat(ClusterDigest.of(clusterName)).isEqualTo(digest);
    }
}

package grid.gateway.app.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The known limits (docs/decisions.md) keep every item of docs/design.md §11 and of the product text's "Limits" section: each item is
 * found by words it cannot be stated without.
 */
class KnownLimitsTest {
    /** Item of docs/design.md §11 or the seed's Limits → words its bullet must hold. */
    private static final Map<String, String[]> ITEMS = Map.of(
            "per-replica memory that starts empty after a restart",
            new String[] {"per gateway replica", "restart"},
            "hashes of request text, not engine tokens",
            new String[] {"request text", "not engine tokens"},
            "only what this replica routed",
            new String[] {"only what this replica routed"},
            "queue depth, not in-flight work",
            new String[] {"queue depth", "in-flight work"},
            "the shared index is a side channel; cache_salt gives a tenant its own keys",
            new String[] {"side channel", "guessed", "`cache_salt` gives a tenant its own keys", "tenant identity"},
            "a tagged id carries no tenant",
            new String[] {"tagged id carries no tenant", "keys responses by id alone"},
            "provider-role gateways forward exact paths only",
            new String[] {"provider-role gateway forwards only its allowed exact paths", "cannot be fetched by id"},
            "a backend cluster must keep one store for its stored responses",
            new String[] {"one store", "own stickiness"});

    @Test
    void knownLimits_holdEverySpecAndSeedItem() {
        String limits = RepoDocs.docSection("docs/decisions.md", "Known limits and deliberate non-features");

        ITEMS.forEach((item, words) -> {
            for (String word : words) {
                assertThat(limits).as(item).contains(word);
            }
        });
    }
}

package grid.gateway.routing.load;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.SiteName;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The requests in flight since a cluster's latest scrape began: an answered request leaves the count, a scrape forgets
 * what was sent before it began (and only that), and nothing can leak past the next scrape.
 */
class InFlightSinceScrapeTest {
    private static final ClusterId A = new ClusterId(new SiteName("east"), "a");
    private static final ClusterId B = new ClusterId(new SiteName("east"), "b");

    private final InFlightSinceScrape inFlight = new InFlightSinceScrape();

    @Test
    void ended_anAnsweredRequestIsNoLongerCounted() {
        long first = inFlight.sent(A);
        long second = inFlight.sent(A);
        inFlight.sent(B);

        inFlight.ended(A, first);

        assertThat(inFlight.count(A)).isEqualTo(1);
        assertThat(inFlight.count(B)).isEqualTo(1);
        inFlight.ended(A, second);
        assertThat(inFlight.count(A)).isZero();
    }

    @Test
    void sequentialRequests_eachAnsweredBeforeTheNext_neverCountMoreThanOne() {
        for (int i = 0; i < 100; i++) {
            long ticket = inFlight.sent(A);
            assertThat(inFlight.count(A)).isEqualTo(1);
            inFlight.ended(A, ticket);
        }

        assertThat(inFlight.count(A)).isZero();
    }

    @Test
    void scraped_forgetsWhatWasSentBeforeTheScrapeBegan_keepsWhatCameAfter() {
        inFlight.sent(A);
        inFlight.sent(A);
        long began = inFlight.mark();
        long after = inFlight.sent(A);

        inFlight.scraped(A, began);

        assertThat(inFlight.count(A)).isEqualTo(1);
        inFlight.ended(A, after);
        assertThat(inFlight.count(A)).isZero();
    }

    @Test
    void scraped_aStalledScrape_whatWasSentDuringTheStallStaysCounted() {
        long began = inFlight.mark();
        for (int i = 0; i < 5; i++) {
            inFlight.sent(A);
        }

        // The scrape that began before the five answers only now.
        inFlight.scraped(A, began);

        assertThat(inFlight.count(A)).isEqualTo(5);
        inFlight.scraped(A, inFlight.mark());
        assertThat(inFlight.count(A)).isZero();
    }

    @Test
    void ended_aRequestSentBeforeTheScrape_takesNothingOffTheLaterOnes() {
        long before = inFlight.sent(A);
        inFlight.scraped(A, inFlight.mark());
        inFlight.sent(A);

        inFlight.ended(A, before);

        assertThat(inFlight.count(A)).isEqualTo(1);
    }

    @Test
    void scraped_anOlderMarkThanTheLatest_changesNothing() {
        long old = inFlight.mark();
        inFlight.sent(A);
        inFlight.scraped(A, inFlight.mark());
        long late = inFlight.sent(A);

        inFlight.scraped(A, old);

        assertThat(inFlight.count(A)).isEqualTo(1);
        inFlight.ended(A, late);
        assertThat(inFlight.count(A)).isZero();
    }

    @Test
    void endedUnstamped_takesOffTheNewest() {
        inFlight.sent(A);
        inFlight.sent(A);

        inFlight.endedUnstamped(A);
        inFlight.endedUnstamped(A);
        inFlight.endedUnstamped(A);

        assertThat(inFlight.count(A)).isZero();
    }

    @Test
    void neverEnded_isForgottenAtTheNextScrape() {
        for (int i = 0; i < 10; i++) {
            inFlight.sent(A);
        }

        inFlight.scraped(A, inFlight.mark());

        assertThat(inFlight.count(A)).isZero();
    }

    @Test
    void count_isBoundedPerCluster() {
        for (int i = 0; i < InFlightSinceScrape.MAX_PER_CLUSTER + 10; i++) {
            inFlight.sent(A);
        }

        assertThat(inFlight.count(A)).isEqualTo(InFlightSinceScrape.MAX_PER_CLUSTER);
    }

    @Test
    void retain_forgetsClustersThatLeft() {
        inFlight.sent(A);
        inFlight.sent(B);

        inFlight.retain(Set.of(B));

        assertThat(inFlight.count(A)).isZero();
        assertThat(inFlight.count(B)).isEqualTo(1);
    }
}

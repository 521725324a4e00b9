package grid.gateway.app.sharing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Which worker applies each cluster's entries, and when a reload moves one (the reader must drain first). */
class ClusterWorkersTest {
    private static SortedSet<String> keys(String spaceSeparated) {
        return spaceSeparated.isEmpty() ? new TreeSet<>() : new TreeSet<>(Arrays.asList(spaceSeparated.split(" ")));
    }

    @Test
    void clustersAreDealtInKeyOrder_roundTheWorkers_anUnknownOneGoesToWorkerZero() {
        ClusterWorkers workers = ClusterWorkers.deal(keys("d b a c e"), 2);

        assertThat(workers.of("a")).isZero();
        assertThat(workers.of("b")).isOne();
        assertThat(workers.of("c")).isZero();
        assertThat(workers.of("d")).isOne();
        assertThat(workers.of("e")).isZero();
        assertThat(workers.of("not-known")).isZero();
        assertThatThrownBy(() -> ClusterWorkers.deal(keys("a"), 0)).isInstanceOf(IllegalArgumentException.class);
    }

    static Stream<Arguments> reloads() {
        return Stream.of(
                // before, after, workers, moves: why
                Arguments.of("", "a b c", 2, false), // the first dealing: nothing is queued yet
                Arguments.of("a b c", "a b c", 2, false), // the same grid
                Arguments.of("a b c", "a b c z", 2, false), // added after every known cluster
                Arguments.of("a b c", "a b", 2, false), // removed at the end
                Arguments.of("b c", "a b c", 2, true), // added before: b and c shift
                Arguments.of("a b c", "b c", 2, true), // removed at the start: b and c shift
                Arguments.of("a c", "a b c", 2, true), // added between: c shifts
                Arguments.of("a b", "a b c d e f", 3, false), // a and b keep workers 0 and 1
                Arguments.of("b c", "a b c", 1, false), // one worker: nothing can move
                Arguments.of("a b c d", "x y", 2, false) // nothing in common: nothing of theirs moves
                );
    }

    @ParameterizedTest(name = "[{0}] -> [{1}] on {2} workers: moves {3}")
    @MethodSource("reloads")
    void aReloadMovesACluster_onlyWhenOneKnownToBothChangesWorker(
            String before, String after, int threads, boolean moves) {
        ClusterWorkers old = before.isEmpty() ? ClusterWorkers.NONE : ClusterWorkers.deal(keys(before), threads);

        assertThat(old.moves(ClusterWorkers.deal(keys(after), threads))).isEqualTo(moves);
    }
}

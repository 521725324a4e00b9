package grid.gateway.enginesim;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A pacer that spends no time and remembers every pause it was asked for. */
final class RecordingPacer implements Pacer {
    final List<Duration> pauses = new CopyOnWriteArrayList<>();

    @Override
    public void pause(Duration duration) {
        pauses.add(duration);
    }

    long count(Duration duration) {
        return pauses.stream().filter(duration::equals).count();
    }
}

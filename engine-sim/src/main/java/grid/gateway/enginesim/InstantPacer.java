package grid.gateway.enginesim;

import java.time.Duration;

/**
 * The instant {@link Pacer}: no pause takes any time, so a simulator answers as fast as its sockets allow. Slots are
 * still taken and released, so the simulated queue works, but a request holds its slot only while a fault holds it.
 *
 * <p>Thread-safe and stateless.
 */
final class InstantPacer implements Pacer {
    static final InstantPacer INSTANCE = new InstantPacer();

    private InstantPacer() {}

    @Override
    public void pause(Duration duration) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("the simulator is closing");
        }
    }

    @Override
    public String toString() {
        return "InstantPacer";
    }
}

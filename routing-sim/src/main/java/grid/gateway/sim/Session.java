package grid.gateway.sim;

import java.util.List;

/**
 * One client's sequence of turns: each turn is sent when the previous answer has finished and the client has
 * thought for the turn's {@link Turn#thinkSeconds()}.
 *
 * <p>Thread-safe (immutable).
 *
 * @param start when the session starts, in units of the mean gap between session starts (a run divides it by the
 *     session rate)
 * @param turns its requests, in order
 */
public record Session(double start, List<Turn> turns) {
    public Session {
        turns = List.copyOf(turns);
    }
}

package grid.gateway.app.forward;

import java.io.IOException;
import java.io.OutputStream;

/**
 * The response's output stream with every write, flush and close watched by the exchange's {@link IdleAlarm}, so a
 * client that stops reading is cut after the send timeout (docs/design.md §H19).
 *
 * <p>Not thread-safe; one per answer, used by the relay's thread.
 */
final class DeadlineOutputStream extends OutputStream {
    private final OutputStream out;
    private final IdleAlarm alarm;

    DeadlineOutputStream(OutputStream out, IdleAlarm alarm) {
        this.out = out;
        this.alarm = alarm;
    }

    @Override
    public void write(int b) throws IOException {
        alarm.clientWrite(() -> out.write(b));
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
        alarm.clientWrite(() -> out.write(bytes, offset, length));
    }

    @Override
    public void flush() throws IOException {
        alarm.clientWrite(out::flush);
    }

    @Override
    public void close() throws IOException {
        alarm.clientWrite(out::close);
    }
}

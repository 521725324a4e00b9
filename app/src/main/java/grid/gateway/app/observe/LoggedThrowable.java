package grid.gateway.app.observe;

import grid.gateway.app.endpoint.RedactedPath;
import java.util.IdentityHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * An exception as a log line may write it: a copy of the exception, its causes and its suppressed exceptions, each
 * with its message's control characters escaped and its words that may be stored ids redacted, as a line's own
 * message is, and its class name and frames kept. A message may quote what a client or an engine sent (a target, a
 * header, an answer's status line); written as thrown, a line break in it forges a line and an id in it is recorded.
 */
final class LoggedThrowable extends Throwable {
    private static final long serialVersionUID = 1L;

    private final String className;

    private LoggedThrowable(Throwable original, @Nullable Throwable cause) {
        super(safe(original.getMessage()), cause, true, true);
        this.className = original.getClass().getName();
        setStackTrace(original.getStackTrace());
    }

    /** {@code thrown} itself when no message in its chain needs a change, else its copy. */
    static Throwable of(Throwable thrown) {
        if (!needsCopy(thrown, new IdentityHashMap<>())) {
            return thrown;
        }
        Throwable copy = copy(thrown, new IdentityHashMap<>());
        return copy == null ? thrown : copy;
    }

    private static boolean needsCopy(Throwable t, Map<Throwable, Boolean> seen) {
        if (seen.put(t, Boolean.TRUE) != null) {
            return false;
        }
        String message = t.getMessage();
        if (message != null && !message.equals(safe(message))) {
            return true;
        }
        for (Throwable suppressed : t.getSuppressed()) {
            if (needsCopy(suppressed, seen)) {
                return true;
            }
        }
        return t.getCause() != null && needsCopy(t.getCause(), seen);
    }

    /**
     * The copy of {@code t}; {@code null} for an exception met again while its own copy is being made (a cause chain
     * that loops, which the JDK writes as a circular reference and the copy ends instead).
     */
    private static @Nullable Throwable copy(Throwable t, Map<Throwable, @Nullable Throwable> copies) {
        if (copies.containsKey(t)) {
            return copies.get(t);
        }
        copies.put(t, null);
        Throwable cause = t.getCause() == null ? null : copy(t.getCause(), copies);
        LoggedThrowable copy = new LoggedThrowable(t, cause);
        copies.put(t, copy);
        for (Throwable suppressed : t.getSuppressed()) {
            Throwable suppressedCopy = copy(suppressed, copies);
            if (suppressedCopy != null && suppressedCopy != copy) {
                copy.addSuppressed(suppressedCopy);
            }
        }
        return copy;
    }

    private static @Nullable String safe(@Nullable String message) {
        return message == null ? null : RedactedPath.inText(LogText.escapeControls(message));
    }

    /** The frames are the original's, set after construction: none is filled in here. */
    @Override
    public synchronized Throwable fillInStackTrace() {
        return this;
    }

    /** The original's {@code toString}: its class name, then its (safe) message; the trace's lines begin with it. */
    @SuppressWarnings("OverrideThrowableToString")
    @Override
    public String toString() {
        String message = getLocalizedMessage();
        return message == null ? className : className + ": " + message;
    }
}

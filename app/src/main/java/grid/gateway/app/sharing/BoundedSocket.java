package grid.gateway.app.sharing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketImpl;
import java.net.SocketOption;
import java.nio.channels.SocketChannel;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A connected Redis socket (plain, or TLS as the client made it) whose input passes through {@link ReplyBounds}: the
 * client reads only replies within the bounds; whose output has a deadline on every write ({@link WriteDeadline}), which
 * the read timeout does not bound. Everything else is the real socket's: timeouts, addresses, options,
 * shutdown and close (no socket of its own is ever made: {@link Socket#Socket(SocketImpl)} with none).
 *
 * <p>Thread-safe as the real socket is; its input belongs to one reading thread.
 */
final class BoundedSocket extends Socket {
    private final Socket real;
    private final InputStream input;
    private final WriteDeadline output;

    /**
     * {@code real}, connected, with its input checked, and each write and its close within {@code writeMillis}
     * ({@link WriteDeadline}, which closes {@code plain}: {@code real} itself, or the plain socket a TLS one is layered
     * over).
     */
    BoundedSocket(Socket real, Socket plain, long writeMillis, long replyMillis) throws IOException {
        super((SocketImpl) null);
        this.real = real;
        ReplyDeadline replies = new ReplyDeadline(plain, replyMillis);
        this.input = new Checked(real.getInputStream(), replies);
        this.output = new WriteDeadline(real.getOutputStream(), plain, writeMillis, replies);
    }

    /** What the client reads: the real input, each read checked before it is handed on. */
    static final class Checked extends InputStream {
        private final InputStream in;
        private final ReplyBounds bounds = new ReplyBounds();
        private final byte[] one = new byte[1];
        private final ReplyDeadline replies;

        Checked(InputStream in, ReplyDeadline replies) {
            this.in = in;
            this.replies = replies;
        }

        @Override
        public int read() throws IOException {
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] bytes, int offset, int length) throws IOException {
            bounds.usable();
            int n;
            try {
                n = in.read(bytes, offset, length);
            } catch (IOException e) {
                throw replies.explained(e);
            }
            if (n > 0) {
                bounds.scan(bytes, offset, n);
                replies.read(bounds.ended());
            }
            return n;
        }

        @Override
        public int available() throws IOException {
            return in.available();
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }

    @Override
    public InputStream getInputStream() {
        return input;
    }

    @Override
    public OutputStream getOutputStream() {
        return output;
    }

    /** None: a channel would read around the check (a socket the client makes has none anyway). */
    @Override
    public @Nullable SocketChannel getChannel() {
        return null;
    }

    @Override
    public void connect(SocketAddress endpoint) throws IOException {
        real.connect(endpoint);
    }

    @Override
    public void connect(SocketAddress endpoint, int timeout) throws IOException {
        real.connect(endpoint, timeout);
    }

    @Override
    public void bind(SocketAddress bindpoint) throws IOException {
        real.bind(bindpoint);
    }

    @Override
    public InetAddress getInetAddress() {
        return real.getInetAddress();
    }

    @Override
    public InetAddress getLocalAddress() {
        return real.getLocalAddress();
    }

    @Override
    public int getPort() {
        return real.getPort();
    }

    @Override
    public int getLocalPort() {
        return real.getLocalPort();
    }

    @Override
    public SocketAddress getRemoteSocketAddress() {
        return real.getRemoteSocketAddress();
    }

    @Override
    public SocketAddress getLocalSocketAddress() {
        return real.getLocalSocketAddress();
    }

    @Override
    public void setTcpNoDelay(boolean on) throws SocketException {
        real.setTcpNoDelay(on);
    }

    @Override
    public boolean getTcpNoDelay() throws SocketException {
        return real.getTcpNoDelay();
    }

    @Override
    public void setSoLinger(boolean on, int linger) throws SocketException {
        real.setSoLinger(on, linger);
    }

    @Override
    public int getSoLinger() throws SocketException {
        return real.getSoLinger();
    }

    @Override
    public void sendUrgentData(int data) throws IOException {
        real.sendUrgentData(data);
    }

    @Override
    public void setOOBInline(boolean on) throws SocketException {
        real.setOOBInline(on);
    }

    @Override
    public boolean getOOBInline() throws SocketException {
        return real.getOOBInline();
    }

    @Override
    public void setSoTimeout(int timeout) throws SocketException {
        real.setSoTimeout(timeout);
    }

    @Override
    public int getSoTimeout() throws SocketException {
        return real.getSoTimeout();
    }

    @Override
    public void setSendBufferSize(int size) throws SocketException {
        real.setSendBufferSize(size);
    }

    @Override
    public int getSendBufferSize() throws SocketException {
        return real.getSendBufferSize();
    }

    @Override
    public void setReceiveBufferSize(int size) throws SocketException {
        real.setReceiveBufferSize(size);
    }

    @Override
    public int getReceiveBufferSize() throws SocketException {
        return real.getReceiveBufferSize();
    }

    @Override
    public void setKeepAlive(boolean on) throws SocketException {
        real.setKeepAlive(on);
    }

    @Override
    public boolean getKeepAlive() throws SocketException {
        return real.getKeepAlive();
    }

    @Override
    public void setTrafficClass(int tc) throws SocketException {
        real.setTrafficClass(tc);
    }

    @Override
    public int getTrafficClass() throws SocketException {
        return real.getTrafficClass();
    }

    @Override
    public void setReuseAddress(boolean on) throws SocketException {
        real.setReuseAddress(on);
    }

    @Override
    public boolean getReuseAddress() throws SocketException {
        return real.getReuseAddress();
    }

    @Override
    public void setPerformancePreferences(int connectionTime, int latency, int bandwidth) {
        real.setPerformancePreferences(connectionTime, latency, bandwidth);
    }

    @Override
    public <T> Socket setOption(SocketOption<T> name, T value) throws IOException {
        real.setOption(name, value);
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        return real.getOption(name);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return real.supportedOptions();
    }

    @Override
    public void shutdownInput() throws IOException {
        real.shutdownInput();
    }

    @Override
    public void shutdownOutput() throws IOException {
        real.shutdownOutput();
    }

    /** Closes the real socket, within the write deadline: a TLS socket's close writes a close_notify. */
    @Override
    public void close() throws IOException {
        output.closeSocket(real);
    }

    @Override
    public boolean isConnected() {
        return real.isConnected();
    }

    @Override
    public boolean isBound() {
        return real.isBound();
    }

    @Override
    public boolean isClosed() {
        return real.isClosed();
    }

    @Override
    public boolean isInputShutdown() {
        return real.isInputShutdown();
    }

    @Override
    public boolean isOutputShutdown() {
        return real.isOutputShutdown();
    }

    @Override
    public String toString() {
        return "bounded " + real;
    }
}

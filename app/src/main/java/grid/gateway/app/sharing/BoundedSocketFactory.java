package grid.gateway.app.sharing;

import java.io.IOException;
import java.net.Socket;
import javax.net.ssl.SSLSocket;
import redis.clients.jedis.DefaultJedisSocketFactory;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The client's own socket factory, whose sockets' replies are checked and writes bounded ({@link BoundedSocket}): a subclass rather than
 * a copy, so that connecting (the connect timeout, the socket options) and TLS (the configured or the JVM's SSL
 * socket factory, HTTPS hostname verification unless other SSL parameters are configured) stay exactly the client's.
 *
 * <p>Thread-safe as its superclass is; one per connection.
 */
final class BoundedSocketFactory extends DefaultJedisSocketFactory {
    private final long writeMillis;
    private final long replyMillis;

    /**
     * Sockets to {@code address} as {@code config} says, each write within {@code writeMillis} and the replies owed
     * within {@code replyMillis} ({@link ReplyDeadline}).
     */
    BoundedSocketFactory(HostAndPort address, JedisClientConfig config, long writeMillis, long replyMillis) {
        super(address, config);
        this.writeMillis = writeMillis;
        this.replyMillis = replyMillis;
    }

    @Override
    public Socket createSocket() throws JedisConnectionException {
        Socket socket;
        Socket plain;
        try {
            socket = super.createSocket();
        } finally {
            // Taken whatever happened, so that nothing of this connection stays with the thread.
            plain = LayeredSocketFactory.take().orElse(null);
        }
        try {
            if (socket instanceof SSLSocket tls) {
                // Here, each of its reads within the socket timeout, rather than inside the first command's write,
                // whose deadline is for a Redis that stops reading, not for a slow first handshake.
                tls.startHandshake();
            }
            return new BoundedSocket(socket, plain != null ? plain : socket, writeMillis, replyMillis);
        } catch (IOException e) {
            try {
                socket.close();
            } catch (IOException alsoClosing) {
                e.addSuppressed(alsoClosing);
            }
            throw new JedisConnectionException("Failed to create socket.", e);
        }
    }
}

package grid.gateway.app.sharing;

import java.io.IOException;
import java.net.Socket;
import redis.clients.jedis.DefaultJedisSocketFactory;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The client's own socket factory, whose sockets' replies are checked ({@link BoundedSocket}): a subclass rather than
 * a copy, so that connecting (the connect timeout, the socket options) and TLS (the configured or the JVM's SSL
 * socket factory, HTTPS hostname verification unless other SSL parameters are configured) stay exactly the client's.
 *
 * <p>Thread-safe as its superclass is; one per connection.
 */
final class BoundedSocketFactory extends DefaultJedisSocketFactory {
    BoundedSocketFactory(HostAndPort address, JedisClientConfig config) {
        super(address, config);
    }

    @Override
    public Socket createSocket() throws JedisConnectionException {
        Socket socket = super.createSocket();
        try {
            return new BoundedSocket(socket);
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

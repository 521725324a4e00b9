package grid.gateway.conformance;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * A Kubernetes Service in miniature for the demo: a TCP listener on loopback that sends each new connection to a
 * replica drawn at random and copies bytes both ways, as kube-proxy does (it spreads connections, not requests).
 * One {@code curl} is one connection, so consecutive turns of a conversation land on different replicas.
 *
 * <p>Thread-safe: one virtual thread accepts, two copy each connection.
 */
public final class RandomSpread implements AutoCloseable {
    private final ServerSocket listener;
    private final List<Integer> replicaPorts;
    private final RandomGenerator random;

    private RandomSpread(ServerSocket listener, List<Integer> replicaPorts, RandomGenerator random) {
        this.listener = listener;
        this.replicaPorts = List.copyOf(replicaPorts);
        this.random = random;
    }

    /** Listens on 127.0.0.1:{@code port} (0: any free port) and spreads over {@code replicaPorts} on 127.0.0.1. */
    public static RandomSpread start(int port, List<Integer> replicaPorts, RandomGenerator random) {
        try {
            ServerSocket listener = new ServerSocket();
            listener.setReuseAddress(true);
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            RandomSpread spread = new RandomSpread(listener, replicaPorts, random);
            Thread.ofVirtual().name("demo-spread-accept").start(spread::accept);
            return spread;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on 127.0.0.1:" + port, e);
        }
    }

    /** The port it listens on. */
    public int port() {
        return listener.getLocalPort();
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                int target = replicaPorts.get(random.nextInt(replicaPorts.size()));
                Thread.ofVirtual().start(() -> connect(client, target));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private static void connect(Socket client, int port) {
        try (client;
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), port)) {
            Thread back = Thread.ofVirtual().start(() -> copy(upstream, client));
            copy(client, upstream);
            back.join();
        } catch (IOException e) {
            // The replica is gone or refused: the client sees its connection close.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Copies until {@code from} ends, then half-closes {@code to} so the other side sees the end too. */
    private static void copy(Socket from, Socket to) {
        try (InputStream in = from.getInputStream()) {
            OutputStream out = to.getOutputStream();
            in.transferTo(out);
            to.shutdownOutput();
        } catch (IOException e) {
            // One side closed: the other copy ends on its own.
        }
    }

    @Override
    public void close() {
        try {
            listener.close();
        } catch (IOException e) {
            // already closed
        }
    }
}

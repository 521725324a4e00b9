package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.UnknownHostException;
import org.junit.jupiter.api.Test;

/** The cached text of the latest IPv4 address is always the text of the address asked about. */
class ClientAddressTest {
    @Test
    void text_alternatingAndRepeatedAddresses_isEachAddressesOwnText() throws UnknownHostException {
        InetAddress[] addresses = {
            InetAddress.getByName("127.0.0.1"),
            InetAddress.getByName("10.1.2.3"),
            InetAddress.getByName("10.1.2.3"),
            InetAddress.getByName("::1"),
            InetAddress.getByName("fe80::1%1"),
            InetAddress.getByName("127.0.0.1"),
            InetAddress.getLoopbackAddress(),
            InetAddress.getByName("192.0.2.255")
        };
        for (int round = 0; round < 3; round++) {
            for (InetAddress address : addresses) {
                assertThat(ClientAddress.text(address)).isEqualTo(address.getHostAddress());
            }
        }
    }
}

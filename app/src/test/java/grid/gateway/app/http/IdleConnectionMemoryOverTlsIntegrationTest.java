package grid.gateway.app.http;

/**
 * {@link IdleConnectionMemoryIntegrationTest} over TLS: an idle connection also holds the JDK's record buffers, an
 * application buffer and a packet buffer of at least one TLS record (16 KiB) each.
 */
class IdleConnectionMemoryOverTlsIntegrationTest extends IdleConnectionMemoryIntegrationTest {
    /** The smallest buffers the JDK's record layer reports for a TLS session: one record's plaintext, twice. */
    private static final double TLS_RECORD_BUFFERS = 2 * 16_384;

    @Override
    EngineTransport transport() {
        return EngineTransport.tls(dir);
    }

    @Override
    boolean oneConnection(double bytes) {
        return bytes >= READER_BUFFER + TLS_RECORD_BUFFERS && bytes < 2 * (READER_BUFFER + TLS_RECORD_BUFFERS);
    }
}

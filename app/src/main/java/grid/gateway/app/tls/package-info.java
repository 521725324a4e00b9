/**
 * TLS at run time: Helidon {@link io.helidon.common.tls.Tls} built from the config's checked PEM material for both
 * listeners and for each https cluster, and swapped live when the files change (certificate rotation).
 */
@NullMarked
package grid.gateway.app.tls;

import org.jspecify.annotations.NullMarked;

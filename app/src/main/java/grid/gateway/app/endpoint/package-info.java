/**
 * The API surface the gateway serves, as one table: each request path is classified once into an {@link
 * grid.gateway.app.endpoint.Endpoint} (its methods, where stored ids appear, how it is keyed, whether its answers are
 * tagged, its error shape), and every later step of the request asks the endpoint.
 */
@NullMarked
package grid.gateway.app.endpoint;

import org.jspecify.annotations.NullMarked;

package grid.gateway.app.config;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.tag.TagKeyRing;

/**
 * One consistent view of the serving config and the tag keys read for it, swapped whole on reload.
 *
 * <p>Thread-safe (immutable).
 *
 * @param config the serving config
 * @param keyRing the keys from {@code gateway.tag_key_path}, or none
 */
public record GatewaySnapshot(GatewayConfig config, TagKeyRing keyRing) {
    public GatewaySnapshot {
        requireNonNull(config, "config");
        requireNonNull(keyRing, "keyRing");
    }
}

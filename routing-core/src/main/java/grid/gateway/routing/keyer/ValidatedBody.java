package grid.gateway.routing.keyer;

/**
 * A body that passed {@link BodyIndex}: a navigator over its bytes and the members of its root object.
 *
 * <p>Not thread-safe; one per body.
 *
 * @param nav navigation over the validated bytes
 * @param root the root object's members, in document order
 */
record ValidatedBody(JsonNav nav, Members root) {}

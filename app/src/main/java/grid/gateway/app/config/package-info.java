/**
 * The serving config (docs/design.md §7): a record tree that mirrors the YAML file, its loader with validation messages that
 * give each problem's key path, and the watcher that re-reads the file (and the tag key file) and swaps the whole
 * snapshot when a valid change appears.
 */
@NullMarked
package grid.gateway.app.config;

import org.jspecify.annotations.NullMarked;

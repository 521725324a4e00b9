/**
 * The listeners' survival of resource exhaustion: an accept that fails for want of file descriptors pauses and
 * resumes instead of ending the listener, whether a listener still accepts (for {@code /health/live}), and the
 * client connection cap derived from the process's open-file limit (docs/failure-behaviour.md, "File descriptors").
 */
@NullMarked
package grid.gateway.app.listen;

import org.jspecify.annotations.NullMarked;

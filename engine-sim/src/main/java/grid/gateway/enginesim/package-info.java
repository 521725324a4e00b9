/**
 * The engine simulator: a fake vLLM-compatible engine on a Helidon web server, modeled on OkHttp's MockWebServer.
 * It serves Chat Completions, Completions, Anthropic Messages and Responses (plain and streamed, each in its own SSE
 * framing), stored responses, {@code /v1/models} and vLLM's {@code /metrics} as a recorded vLLM server does
 * ({@code testdata/vllm/}), and conversations when asked to; it simulates
 * a queue with a fixed number of slots, prefill and decode rates and its own prefix cache, fails on demand, and
 * records every request it receives (docs/design.md §A1–§A8).
 */
@NullMarked
package grid.gateway.enginesim;

import org.jspecify.annotations.NullMarked;

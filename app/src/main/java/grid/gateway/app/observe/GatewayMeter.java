package grid.gateway.app.observe;

import java.util.List;

/**
 * Every meter the gateway exposes on the admin port's {@code /metrics} (docs/design.md §10), declared in one list
 * (docs/design.md §S2.4.11). Label values come only from enums and configured cluster names, so the number of series is bounded by
 * the grid.
 *
 * <p>{@link #exposedName()} is the name in the Prometheus text. Micrometer's Prometheus naming appends
 * {@code _total} to counters and the base unit to timers, so a counter is registered without {@code _total} and the
 * latency timer without {@code _seconds}; {@code GatewayMetricsTest} checks every exposed name on a real scrape.
 * Helidon adds a {@code scope="application"} label to each series.
 *
 * <p>Stateless and thread-safe.
 */
public enum GatewayMeter {
    /** Requests with two or more candidates, by how prefix affinity decided. */
    PREFIX_AFFINITY(
            Type.COUNTER,
            "grid_route_prefix_affinity",
            "Requests with two or more admitted candidates, by how prefix affinity decided",
            "outcome"),
    /** Requests naming a stored id, by how the pin resolved. */
    PINNED(Type.COUNTER, "grid_route_pinned", "Requests naming a tagged stored id, by how the pin resolved", "outcome"),
    /** Answers from backend clusters, by HTTP status. */
    UPSTREAM_REQUESTS(
            Type.COUNTER,
            "grid_upstream_requests",
            "Answers received from a backend cluster, by exact HTTP status code",
            "cluster",
            "status"),
    /** Time from sending a request upstream to its response headers. */
    UPSTREAM_LATENCY(
            Type.TIMER,
            "grid_upstream_latency",
            "Seconds from sending a request to a backend cluster to receiving its response headers",
            "cluster"),
    /** Forwarding attempts that got no answer. */
    UPSTREAM_ERRORS(
            Type.COUNTER,
            "grid_upstream_errors",
            "Forwarding attempts to a backend cluster that failed before or while reading the answer, by kind",
            "cluster",
            "kind"),
    /** Requests sent to a backend cluster a second time, by why. */
    UPSTREAM_RETRIES(
            Type.COUNTER,
            "grid_upstream_retries",
            "Requests sent to a backend cluster a second time: stale_connection (a reused connection failed before"
                    + " any byte of the answer), out_of_step (a reused connection began with what is no answer to the"
                    + " request)",
            "cluster",
            "reason"),
    /** Upstream connections closed for bytes an engine wrote beyond its answers, by where they were found. */
    UPSTREAM_LEFTOVERS(
            Type.COUNTER,
            "grid_upstream_leftovers",
            "Connections to a backend cluster closed for bytes the engine wrote beyond the answers read there:"
                    + " answer_end (past an answer read to its end), idle (arrived while pooled, plain TCP)",
            "cluster",
            "found"),
    /** Windowed worst queue depth; NaN while unmeasured. */
    QUEUE_DEPTH(
            Type.GAUGE,
            "grid_cluster_queue_depth",
            "Windowed worst queue depth of a backend cluster (load.window_secs); NaN while unmeasured",
            "cluster"),
    /** A cluster's pods in its latest scrape round, by whether each gave a queue depth. */
    CLUSTER_PODS(
            Type.GAUGE,
            "grid_cluster_pods",
            "Pods of a backend cluster in its latest scrape round: measured (gave a queue depth) or unmeasured",
            "cluster",
            "state"),
    /** 1 while some of a cluster's pods give a depth and some do not. */
    PARTLY_MEASURED(
            Type.GAUGE,
            "grid_cluster_partly_measured",
            "1 when some pods of a backend cluster failed its latest scrape round and its queue depth is the sum over"
                    + " the others; 0 otherwise",
            "cluster"),
    /** Failed resolutions of a cluster's {@code metrics_dns} name. */
    DNS_FAILURES(
            Type.COUNTER,
            "grid_cluster_dns_failures",
            "Resolutions of a backend cluster's metrics_dns name that failed (its last known pods stay scraped)",
            "cluster"),
    /** Whether a cluster admits requests. */
    ADMITTED(
            Type.GAUGE,
            "grid_cluster_admitted",
            "1 when a backend cluster admits new requests, 0 when draining, full or ejected",
            "cluster"),
    /** Entries in a cluster's prefix LRU. */
    PREFIX_INDEX_ENTRIES(
            Type.GAUGE,
            "grid_prefix_index_entries",
            "Block keys held in a backend cluster's prefix LRU on this replica",
            "cluster"),
    /** The prefill rate in force for a cluster: measured under {@code auto}, else configured. */
    PREFILL_TOKENS_PER_SECOND(
            Type.GAUGE,
            "grid_cluster_prefill_tokens_per_second",
            "Prefill rate (uncached prompt tokens a second) the load gate prices a backend cluster's matches with:"
                    + " measured under auto, else configured",
            "cluster"),
    /** The queued-request cost in force for a cluster: measured under {@code auto}, else configured. */
    QUEUED_REQUEST_SECONDS(
            Type.GAUGE,
            "grid_cluster_queued_request_seconds",
            "Seconds one queued request costs at a backend cluster, as the load gate uses it: measured under auto,"
                    + " else configured",
            "cluster"),
    /** The prefix LRU capacity in force for a cluster. */
    PREFIX_INDEX_CAPACITY(
            Type.GAUGE,
            "grid_prefix_index_capacity",
            "Entries a backend cluster's prefix LRU may hold on this replica: measured under capacity auto, else"
                    + " configured",
            "cluster"),
    /** Engine series an {@code auto} estimate needs that a cluster's latest scrape lacked. */
    CALIBRATION_MISSING(
            Type.GAUGE,
            "grid_cluster_calibration_missing",
            "1 while a backend cluster's latest scrape lacks an engine series that an auto estimate needs (that"
                    + " estimate keeps the configured value), 0 once it is back; a series shows from its first absence",
            "cluster",
            "series"),
    /** Config reloads by result. */
    CONFIG_RELOADS(Type.COUNTER, "grid_config_reloads", "Serving config changes, applied or refused", "result"),
    /** Cached prompt tokens the gateway predicted (run × 64). */
    CACHED_TOKENS_PREDICTED(
            Type.COUNTER,
            "grid_prefix_cached_tokens_predicted",
            "Prompt tokens predicted cached (run x 64), over answers whose usage reported cached tokens",
            "cluster",
            "outcome"),
    /** Cached prompt tokens the engine reported in usage. */
    CACHED_TOKENS_REPORTED(
            Type.COUNTER,
            "grid_prefix_cached_tokens_reported",
            "Prompt tokens the engine reported cached in the answer's usage",
            "cluster",
            "outcome"),
    /** Requests whose body got no block keys, by reason. */
    KEYER_NO_KEYS(Type.COUNTER, "grid_keyer_no_keys", "Request bodies that got no block keys, by reason", "reason"),
    /** Client requests refused or cut before forwarding, by reason. */
    REQUESTS_REFUSED(
            Type.COUNTER,
            "grid_requests_refused",
            "Client requests refused before forwarding: bad path, method or body, body too large or too slow, budget",
            "reason"),
    /** Client requests being handled now. */
    REQUESTS_IN_FLIGHT(
            Type.GAUGE,
            "grid_requests_in_flight",
            "Client requests the gateway is handling now, from request line to the end of the answer"),
    /** Whether this replica's prefix-memory sharing is connected to Redis (docs/prefix-sharing.md). */
    SHARING_CONNECTED(
            Type.GAUGE,
            "grid_prefix_sharing_connected",
            "1 while prefix-memory sharing reads the Redis stream; 0 when sharing is off or Redis is unreachable"),
    /** Own confirmations and drops written to the sharing stream. */
    SHARING_PUBLISHED(
            Type.COUNTER,
            "grid_prefix_sharing_published",
            "This replica's prefix confirmations and drops written to the Redis stream"),
    /** Peers' confirmations and drops applied to this replica's memory. */
    SHARING_APPLIED(
            Type.COUNTER,
            "grid_prefix_sharing_applied",
            "Peer replicas' prefix confirmations and drops applied to this replica's memory (warm start included)"),
    /** Confirmations that waited for the peers to apply them, by how the wait ended. */
    SHARING_WAITS(
            Type.COUNTER,
            "grid_prefix_sharing_waits",
            "Confirmations that waited (sharing.confirm_wait_ms), before their answer was relayed, for every live peer to"
                    + " apply them: applied, or timed_out",
            "result"),
    /** Sharing entries not published or not applied, by reason. */
    SHARING_DROPPED(
            Type.COUNTER,
            "grid_prefix_sharing_dropped",
            "Prefix sharing entries not published (queue_full, unsent) or not applied (apply_queue_full, malformed,"
                    + " unknown_cluster, expired)",
            "reason"),
    /** Age of the latest peer entry when it was applied. */
    SHARING_LAG(
            Type.GAUGE,
            "grid_prefix_sharing_lag_seconds",
            "Seconds between a peer's confirmation and its application here, for the latest entry applied; NaN"
                    + " before the first"),
    /** Request body bytes held in memory now, against {@code server.max_inflight_body_bytes}. */
    INFLIGHT_BODY_BYTES(
            Type.GAUGE,
            "grid_inflight_body_bytes",
            "Request body bytes held in memory now (buffers reserved against server.max_inflight_body_bytes)"),
    /** Answer bytes relays hold now, counted in the same budget as bodies. */
    INFLIGHT_ANSWER_BYTES(
            Type.GAUGE,
            "grid_inflight_answer_bytes",
            "Answer bytes relays hold in memory now (copy buffers, tagged answers and events held to be tagged),"
                    + " counted against server.max_inflight_body_bytes"),
    /** Bytes the queue scrapes' pages hold now, against the scrape budget. */
    INFLIGHT_SCRAPE_BYTES(
            Type.GAUGE,
            "grid_inflight_scrape_bytes",
            "Bytes the queue scrapes' /metrics pages hold in memory now (page buffers and decoded text), against"
                    + " the 64 MiB all scrapes share"),
    /** Memory the pooled idle upstream connections hold now. */
    UPSTREAM_IDLE_CONNECTION_BYTES(
            Type.GAUGE,
            "grid_upstream_idle_connection_bytes",
            "Bytes the idle pooled upstream connections hold in memory now (reader buffers, and over TLS the JDK's"
                    + " record buffers at the sizes their sessions report)"),
    /** Access log lines dropped because the output (stdout) did not take them. */
    ACCESS_LOG_DROPPED(
            Type.COUNTER,
            "grid_access_log_dropped",
            "Access log lines dropped because stdout did not take them: the line queue was full (a stalled reader of"
                    + " the process's output)"),
    /** The gateway's own log lines dropped because the output (stderr) did not take them. */
    LOG_DROPPED(
            Type.COUNTER,
            "grid_log_dropped",
            "The gateway's own log lines dropped because stderr did not take them: the line queue was full (a stalled"
                    + " reader of the process's output)"),
    /** Spans the tracing's export queue was too full to take. */
    TRACE_SPANS_DROPPED(
            Type.COUNTER,
            "grid_trace_spans_dropped",
            "Spans not exported because the export queue (2048 spans) was full: the collector is slower than the"
                    + " spans come, or unreachable; 0 while tracing.otlp_endpoint is unset"),
    /** Whether a listener accepts connections now. */
    LISTENER_ACCEPTING(
            Type.GAUGE,
            "grid_listener_accepting",
            "1 while a listener accepts connections; 0 while its accepts are paused (no file descriptor free) or it"
                    + " stopped",
            "listener"),
    /** Times a listener's accepts paused because an accept failed. */
    LISTENER_ACCEPT_PAUSES(
            Type.COUNTER,
            "grid_listener_accept_pauses",
            "Times a listener paused accepting because an accept failed (EMFILE, ENFILE: no file descriptor free)",
            "listener"),
    /** Client connections closed because the client took no byte for the send timeout. */
    CLIENT_SEND_TIMEOUTS(
            Type.COUNTER,
            "grid_client_send_timeouts",
            "Client connections closed because the client took no byte of an answer for send_timeout_ms",
            "listener"),
    /** Client requests whose client left before the answer ended, by whether any of it had gone out. */
    CLIENT_GONE(
            Type.COUNTER,
            "grid_client_gone",
            "Client requests whose client left before their answer ended: before_answer (none of it had gone out),"
                    + " during_answer (the head or part of the body had)",
            "stage"),
    /** The client connection cap in force. */
    CLIENT_CONNECTIONS_LIMIT(
            Type.GAUGE,
            "grid_client_connections_limit",
            "Client connections the client listener holds at most (server.max_connections, or derived from the"
                    + " open-file limit under auto); 0: no limit"),
    /** File descriptors the process has open. */
    OPEN_FILES(Type.GAUGE, "grid_open_files", "File descriptors the gateway process has open; NaN where unknown"),
    /** The process's open-file limit. */
    OPEN_FILES_LIMIT(
            Type.GAUGE,
            "grid_open_files_limit",
            "The gateway process's open-file limit (RLIMIT_NOFILE); NaN where unknown"),
    /** Calls of the admin route explainer, by result. */
    ROUTE_EXPLAIN_CALLS(
            Type.COUNTER,
            "grid_admin_route_explain_calls",
            "Calls of the admin POST /route/explain: answered, unauthorized (no or a wrong bearer token), disabled"
                    + " (route_explain.enabled false), refused (a bad or too large body)",
            "result");

    /** The Prometheus type a meter is exposed as. */
    public enum Type {
        /** A monotonic count: exposed with {@code _total}. */
        COUNTER,
        /** A value read at scrape time. */
        GAUGE,
        /** Durations in seconds: exposed as a histogram ({@code _bucket}, {@code _count}, {@code _sum}). */
        TIMER
    }

    private final Type type;
    private final String registeredName;
    private final String description;
    private final List<String> labels;

    GatewayMeter(Type type, String registeredName, String description, String... labels) {
        this.type = type;
        this.registeredName = registeredName;
        this.description = description;
        this.labels = List.of(labels);
    }

    /** How the meter is exposed. */
    public Type type() {
        return type;
    }

    /** The name given to the registry. */
    public String registeredName() {
        return registeredName;
    }

    /** The name in the Prometheus text, e.g. {@code grid_route_prefix_affinity_total}. */
    public String exposedName() {
        return switch (type) {
            case COUNTER -> registeredName + "_total";
            case TIMER -> registeredName + "_seconds";
            case GAUGE -> registeredName;
        };
    }

    /** The meter's help text. */
    public String description() {
        return description;
    }

    /** The label names, in the order the gateway passes their values (Helidon adds {@code scope}). */
    public List<String> labels() {
        return labels;
    }
}

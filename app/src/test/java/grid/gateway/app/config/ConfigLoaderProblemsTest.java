package grid.gateway.app.config;

import static grid.gateway.app.config.TestConfigs.MINIMAL;
import static grid.gateway.app.config.TestConfigs.withCluster;
import static grid.gateway.app.config.TestConfigs.withGateway;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import grid.gateway.routing.grid.SiteName;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** One invalid config a row: each is refused with exactly one problem, naming its key path. */
class ConfigLoaderProblemsTest {
    private static final String CLUSTER_PATH = "sites[0].clusters[0]";
    private static final String ROUTE = "plugins.grid_site_route";
    private static final String CLUSTER_NAME = "a non-empty name of at most 253 characters, without control, invisible"
            + " format or unpaired surrogate characters";
    private static final String MODEL_NAME = "a non-empty model name of at most 253 characters, without control,"
            + " invisible format or unpaired surrogate characters";
    private static final String NAMES =
            "name, url, models, metrics_url, metrics_urls, metrics_dns, max_queue_depth, max_running, draining, tls";

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @MethodSource({"server", "gateway", "sites", "clusters", "plugins", "shapes"})
    void load_invalidConfig_refusedWithThatProblemOnly(String name, String yaml, String problem) {
        assertThat(TestConfigs.problems(dir, yaml)).containsExactly(problem);
    }

    static Stream<Arguments> server() {
        return Stream.of(
                arguments(
                        "port over 65535",
                        "server: {port: 70000}\n" + MINIMAL,
                        "server.port: 70000 (expected: 0..65535)"),
                arguments("port negative", "server: {port: -1}\n" + MINIMAL, "server.port: -1 (expected: 0..65535)"),
                arguments(
                        "port quoted",
                        "server: {port: \"8080\"}\n" + MINIMAL,
                        "server.port: \"8080\" (expected: an integer in 0..65535)"),
                arguments(
                        "port with a leading zero",
                        "server: {port: 017}\n" + MINIMAL,
                        "server.port: \"017\" (expected: an integer in 0..65535)"),
                arguments(
                        "port without value",
                        "server:\n  port:\n" + MINIMAL,
                        "server.port: null (expected: an integer in 0..65535)"),
                arguments(
                        "admin port equal to port",
                        "server: {port: 8080, admin_port: 8080}\n" + MINIMAL,
                        "server.admin_port: 8080 (expected: a port other than server.port, or 0)"),
                arguments(
                        "max_body_bytes zero",
                        "server: {max_body_bytes: 0}\n" + MINIMAL,
                        "server.max_body_bytes: 0 (expected: > 0)"),
                arguments(
                        "header_timeout_ms zero",
                        "server: {header_timeout_ms: 0}\n" + MINIMAL,
                        "server.header_timeout_ms: 0 (expected: > 0)"),
                arguments(
                        "body_timeout_ms quoted",
                        "server: {body_timeout_ms: \"60000\"}\n" + MINIMAL,
                        "server.body_timeout_ms: \"60000\" (expected: an integer > 0)"),
                arguments(
                        "max_body_bytes over an array",
                        "server: {max_body_bytes: 4294967296}\n" + MINIMAL,
                        "server.max_body_bytes: 4294967296 (expected: at most 2147483639, the largest body a byte"
                                + " array holds)"),
                arguments(
                        "dash-case key",
                        "server: {admin-port: 9091}\n" + MINIMAL,
                        "server.admin-port: unknown key (expected: admin_port; keys are snake_case)"),
                arguments(
                        "unknown top-level key",
                        "servers: {}\n" + MINIMAL,
                        "servers: unknown key (expected: one of server, gateway, sites, plugins, development, tracing)"),
                arguments("server not a mapping", "server: 8080\n" + MINIMAL, "server: 8080 (expected: a mapping)"));
    }

    static Stream<Arguments> gateway() {
        return Stream.of(
                arguments(
                        "site missing",
                        MINIMAL.replace("  site: east\n", "  role: consumer\n"),
                        "gateway.site: missing (expected: the local site's name, one of sites[*].name)"),
                arguments(
                        "gateway missing",
                        MINIMAL.replace("gateway:\n  site: east\n", ""),
                        "gateway.site: missing (expected: the local site's name, one of sites[*].name)"),
                arguments(
                        "gateway not a mapping",
                        MINIMAL.replace("gateway:\n  site: east\n", "gateway: east\n"),
                        "gateway: \"east\" (expected: a mapping)"),
                arguments(
                        "site not in the grid",
                        MINIMAL.replace("site: east", "site: north"),
                        "gateway.site: \"north\" (expected: one of the sites: east)"),
                arguments(
                        "site not DNS-1123",
                        MINIMAL.replace("site: east", "site: East"),
                        "gateway.site: " + siteNameProblem("East")),
                arguments(
                        "role capitalised",
                        withGateway("role: Provider"),
                        "gateway.role: \"Provider\" (expected: consumer or provider)"),
                arguments(
                        "access log format unknown",
                        withGateway("access_log: text"),
                        "gateway.access_log: \"text\" (expected: json or off)"),
                arguments(
                        "access log as a boolean",
                        withGateway("access_log: false"),
                        "gateway.access_log: false (expected: json or off)"),
                arguments(
                        "allowed path without slash",
                        withGateway("allowed_paths: [v1/messages]"),
                        "gateway.allowed_paths[0]: \"v1/messages\" (expected: an exact path starting with '/')"),
                arguments(
                        "allowed path with query",
                        withGateway("allowed_paths: [\"/v1/messages?beta=1\"]"),
                        "gateway.allowed_paths[0]: \"/v1/messages?beta=1\" (expected: an exact path starting with"
                                + " '/', without query, fragment, white space, dot segments or encoded slashes)"),
                arguments(
                        "allowed path with dot segment",
                        withGateway("allowed_paths: [/v1/../admin]"),
                        "gateway.allowed_paths[0]: \"/v1/../admin\" (expected: an exact path starting with '/',"
                                + " without query, fragment, white space, dot segments or encoded slashes)"),
                arguments(
                        "allowed path twice",
                        withGateway("allowed_paths: [/v1/messages, /v1/messages]"),
                        "gateway.allowed_paths[1]: \"/v1/messages\" (expected: a path not already listed)"),
                arguments(
                        "allowed paths empty",
                        withGateway("allowed_paths: []"),
                        "gateway.allowed_paths: a list (expected: at least one path)"),
                arguments(
                        "allowed paths a string",
                        withGateway("allowed_paths: /v1/messages"),
                        "gateway.allowed_paths: \"/v1/messages\" (expected: a list of exact paths, each starting"
                                + " with '/')"),
                arguments(
                        "tag key path empty",
                        withGateway("tag_key_path: \"\""),
                        "gateway.tag_key_path: \"\" (expected: the path of the tag key file)"),
                arguments(
                        "config_poll_ms zero",
                        withGateway("config_poll_ms: 0"),
                        "gateway.config_poll_ms: 0 (expected: > 0)"),
                arguments(
                        "config_poll_ms beyond the clock",
                        withGateway("config_poll_ms: 9223372036855"),
                        "gateway.config_poll_ms: 9223372036855 (expected: at most 9223372036854, what the monotonic"
                                + " clock holds in nanoseconds)"),
                arguments(
                        "upstream timeout a float",
                        withGateway("upstream: {connect_timeout_ms: 1.5}"),
                        "gateway.upstream.connect_timeout_ms: 1.5 (expected: an integer > 0)"),
                arguments(
                        "upstream connections zero",
                        withGateway("upstream: {max_connections_per_cluster: 0}"),
                        "gateway.upstream.max_connections_per_cluster: 0 (expected: > 0)"),
                arguments(
                        "upstream unknown key",
                        withGateway("upstream: {read_timeout_ms: 5}"),
                        "gateway.upstream.read_timeout_ms: unknown key (expected: one of connect_timeout_ms,"
                                + " first_byte_timeout_ms, idle_timeout_ms, max_connections_per_cluster,"
                                + " max_connection_age_ms, tls)"));
    }

    static Stream<Arguments> sites() {
        String eastTwice = MINIMAL + "  - name: east\n    clusters: [{name: b, url: \"http://b\", models: [m]}]\n";
        return Stream.of(
                arguments(
                        "sites missing",
                        MINIMAL.substring(0, MINIMAL.indexOf("sites:")),
                        "sites: missing (expected: a non-empty list of sites, each with a name and clusters)"),
                arguments(
                        "sites empty",
                        MINIMAL.substring(0, MINIMAL.indexOf("sites:")) + "sites: []\n",
                        "sites: a list (expected: a non-empty list of sites, each with a name and clusters)"),
                arguments(
                        "site not a mapping",
                        MINIMAL.substring(0, MINIMAL.indexOf("sites:")) + "sites: [east]\n",
                        "sites[0]: \"east\" (expected: a mapping)"),
                arguments(
                        "site name not DNS-1123",
                        MINIMAL.replace("- name: east", "- name: east_1"),
                        "sites[0].name: " + siteNameProblem("east_1")),
                arguments(
                        "site listed twice",
                        eastTwice,
                        "sites[1].name: \"east\" (expected: a name no other site has; sites[0].name has it)"),
                arguments(
                        "site without clusters",
                        MINIMAL.substring(0, MINIMAL.indexOf("    clusters:")) + "    clusters: []\n",
                        "sites[0].clusters: a list (expected: a non-empty list of backend clusters)"),
                arguments(
                        "site unknown key",
                        MINIMAL.replace("- name: east\n", "- name: east\n    region: eu\n"),
                        "sites[0].region: unknown key (expected: one of name, clusters)"));
    }

    static Stream<Arguments> clusters() {
        String second = "      - name: %s\n        url: http://127.0.0.1:8002\n        models: [demo-model]\n";
        return Stream.of(
                arguments(
                        "cluster name empty",
                        MINIMAL.replace("name: east-a", "name: \"\""),
                        CLUSTER_PATH + ".name: \"\" (expected: " + CLUSTER_NAME + ")"),
                arguments(
                        "cluster name of 10 KB",
                        MINIMAL.replace("name: east-a", "name: " + "a".repeat(10_240)),
                        CLUSTER_PATH + ".name: \"" + "a".repeat(80) + "…\" (expected: " + CLUSTER_NAME + ")"),
                arguments(
                        "cluster name one character too long",
                        MINIMAL.replace("name: east-a", "name: " + "a".repeat(254)),
                        CLUSTER_PATH + ".name: \"" + "a".repeat(80) + "…\" (expected: " + CLUSTER_NAME + ")"),
                arguments(
                        "cluster name with an invisible format character",
                        MINIMAL.replace("name: east-a", "name: \"east\\u200Ba\""),
                        CLUSTER_PATH + ".name: \"east\\u200ba\" (expected: " + CLUSTER_NAME + ")"),
                arguments(
                        "cluster name with an unpaired surrogate",
                        MINIMAL.replace("name: east-a", "name: \"east\\uD800\""),
                        CLUSTER_PATH + ".name: \"east\\ud800\" (expected: " + CLUSTER_NAME + ")"),
                arguments(
                        "cluster name twice",
                        MINIMAL + second.formatted("east-a"),
                        "sites[0].clusters[1].name: \"east-a\" (expected: a name no other cluster of this site has;"
                                + " sites[0].clusters[0].name has it)"),
                // Known collision: both names' SHA-256 starts cb802159, so stored-id tags could not tell them apart.
                arguments(
                        "cluster digests equal",
                        MINIMAL.replace("name: east-a", "name: cluster-106014") + second.formatted("cluster-117702"),
                        "sites[0].clusters[1].name: \"cluster-117702\" (expected: a name whose digest differs from"
                                + " sites[0].clusters[0].name's (both are cb802159, and stored-id tags name a cluster"
                                + " by its digest))"),
                arguments(
                        "url ftp",
                        MINIMAL.replace("http://127.0.0.1:8001", "\"ftp://x\""),
                        CLUSTER_PATH + ".url: \"ftp://x\" (expected: an http or https URL)"),
                arguments(
                        "url without scheme",
                        MINIMAL.replace("http://127.0.0.1:8001", "127.0.0.1:8001"),
                        CLUSTER_PATH + ".url: \"127.0.0.1:8001\" (expected: an http or https URL)"),
                arguments(
                        "url without host",
                        MINIMAL.replace("http://127.0.0.1:8001", "\"http:///v1\""),
                        CLUSTER_PATH + ".url: \"http:///v1\" (expected: an http or https URL with a host)"),
                arguments(
                        "url with query",
                        MINIMAL.replace("http://127.0.0.1:8001", "\"http://h:8001/?a=1\""),
                        CLUSTER_PATH + ".url: \"http://h:8001/?a=1\" (expected: an http or https URL without query"
                                + " or fragment)"),
                arguments(
                        "url with fragment",
                        MINIMAL.replace("http://127.0.0.1:8001", "\"http://h:8001#top\""),
                        CLUSTER_PATH + ".url: \"http://h:8001#top\" (expected: an http or https URL without query"
                                + " or fragment)"),
                arguments(
                        "url with user info",
                        MINIMAL.replace("http://127.0.0.1:8001", "\"http://u:p@h:8001\""),
                        CLUSTER_PATH + ".url: \"http://u:p@h:8001\" (expected: an http or https URL without user"
                                + " info (it would show in logs))"),
                arguments(
                        "url port over 65535",
                        MINIMAL.replace("127.0.0.1:8001", "127.0.0.1:80010"),
                        CLUSTER_PATH + ".url: \"http://127.0.0.1:80010\" (expected: an http or https URL with a port"
                                + " in 1..65535)"),
                arguments(
                        "url with an empty port",
                        MINIMAL.replace("http://127.0.0.1:8001", "\"http://127.0.0.1:\""),
                        CLUSTER_PATH + ".url: \"http://127.0.0.1:\" (expected: an http or https URL with a port"
                                + " in 1..65535)"),
                arguments(
                        "metrics_url with an empty port",
                        withCluster("metrics_url: \"http://[::1]:/metrics\""),
                        CLUSTER_PATH + ".metrics_url: \"http://[::1]:/metrics\" (expected: an http or https URL"
                                + " with a port in 1..65535)"),
                arguments(
                        "url missing",
                        MINIMAL.replace("        url: http://127.0.0.1:8001\n", ""),
                        CLUSTER_PATH + ".url: missing (expected: an http or https URL)"),
                arguments(
                        "metrics_url ftp",
                        withCluster("metrics_url: \"ftp://x/metrics\""),
                        CLUSTER_PATH + ".metrics_url: \"ftp://x/metrics\" (expected: an http or https URL)"),
                arguments(
                        "models missing",
                        MINIMAL.replace("        models: [demo-model]\n", ""),
                        CLUSTER_PATH + ".models: missing (expected: a non-empty list of model names)"),
                arguments(
                        "models empty",
                        MINIMAL.replace("[demo-model]", "[]"),
                        CLUSTER_PATH + ".models: a list (expected: a non-empty list of model names)"),
                arguments(
                        "model empty",
                        MINIMAL.replace("[demo-model]", "[demo-model, \"\"]"),
                        CLUSTER_PATH + ".models[1]: \"\" (expected: " + MODEL_NAME + ")"),
                arguments(
                        "model a number",
                        MINIMAL.replace("[demo-model]", "[7]"),
                        CLUSTER_PATH + ".models[0]: 7 (expected: " + MODEL_NAME + ")"),
                arguments(
                        "model name of 512 KiB",
                        MINIMAL.replace("[demo-model]", "[" + "m".repeat(1 << 19) + "]"),
                        CLUSTER_PATH + ".models[0]: \"" + "m".repeat(80) + "…\" (expected: " + MODEL_NAME + ")"),
                arguments(
                        "model name one character too long",
                        MINIMAL.replace("[demo-model]", "[demo-model, " + "m".repeat(254) + "]"),
                        CLUSTER_PATH + ".models[1]: \"" + "m".repeat(80) + "…\" (expected: " + MODEL_NAME + ")"),
                arguments(
                        "model name with an invisible format character",
                        MINIMAL.replace("[demo-model]", "[\"demo\\u200Bmodel\"]"),
                        CLUSTER_PATH + ".models[0]: \"demo\\u200bmodel\" (expected: " + MODEL_NAME + ")"),
                arguments(
                        "model name with an unpaired surrogate",
                        MINIMAL.replace("[demo-model]", "[\"demo\\uDC00\"]"),
                        CLUSTER_PATH + ".models[0]: \"demo\\udc00\" (expected: " + MODEL_NAME + ")"),
                arguments(
                        "model name with a line break",
                        MINIMAL.replace("[demo-model]", "[\"demo\\nmodel\"]"),
                        CLUSTER_PATH + ".models[0]: \"demo\\nmodel\" (expected: " + MODEL_NAME + ")"),
                arguments(
                        "url of 512 KiB",
                        MINIMAL.replace("http://127.0.0.1:8001", "http://127.0.0.1:8001/" + "p".repeat(1 << 19)),
                        CLUSTER_PATH + ".url: \"http://127.0.0.1:8001/" + "p".repeat(58) + "…\" (expected: an http or"
                                + " https URL of at most 2048 characters)"),
                arguments(
                        "url one character too long",
                        MINIMAL.replace("http://127.0.0.1:8001", "http://127.0.0.1:8001/" + "p".repeat(2048 - 21)),
                        CLUSTER_PATH + ".url: \"http://127.0.0.1:8001/" + "p".repeat(58) + "…\" (expected: an http or"
                                + " https URL of at most 2048 characters)"),
                arguments(
                        "url with an invisible format character",
                        MINIMAL.replace("http://127.0.0.1:8001", "\"http://127.0.0.1:8001/v\\u200B1\""),
                        CLUSTER_PATH + ".url: \"http://127.0.0.1:8001/v\\u200b1\" (expected: an http or https URL in"
                                + " printable US-ASCII (percent-encode anything else))"),
                arguments(
                        "url with a letter beyond US-ASCII",
                        MINIMAL.replace("http://127.0.0.1:8001", "http://127.0.0.1:8001/mod\u00e8les"),
                        CLUSTER_PATH + ".url: \"http://127.0.0.1:8001/mod\u00e8les\" (expected: an http or https URL in"
                                + " printable US-ASCII (percent-encode anything else))"),
                arguments(
                        "metrics_url of 512 KiB",
                        withCluster("metrics_url: http://127.0.0.1:8001/" + "p".repeat(1 << 19)),
                        CLUSTER_PATH + ".metrics_url: \"http://127.0.0.1:8001/" + "p".repeat(58) + "…\" (expected: an"
                                + " http or https URL of at most 2048 characters)"),
                arguments(
                        "model twice",
                        MINIMAL.replace("[demo-model]", "[demo-model, demo-model]"),
                        CLUSTER_PATH + ".models[1]: \"demo-model\" (expected: a model not already listed)"),
                arguments(
                        "max_queue_depth zero",
                        withCluster("max_queue_depth: 0"),
                        CLUSTER_PATH + ".max_queue_depth: 0 (expected: > 0)"),
                arguments(
                        "max_queue_depth over an int",
                        withCluster("max_queue_depth: 2147483648"),
                        CLUSTER_PATH + ".max_queue_depth: 2147483648 (expected: at most 2147483647)"),
                arguments(
                        "draining yes",
                        withCluster("draining: yes"),
                        CLUSTER_PATH + ".draining: \"yes\" (expected: true or false)"),
                arguments(
                        "draining quoted",
                        withCluster("draining: \"false\""),
                        CLUSTER_PATH + ".draining: \"false\" (expected: true or false)"),
                arguments(
                        "cluster unknown key",
                        withCluster("weight: 2"),
                        CLUSTER_PATH + ".weight: unknown key (expected: one of " + NAMES + ")"),
                arguments(
                        "cluster dash-case key",
                        withCluster("max-queue-depth: 2"),
                        CLUSTER_PATH + ".max-queue-depth: unknown key (expected: max_queue_depth; keys are"
                                + " snake_case)"));
    }

    static Stream<Arguments> plugins() {
        String load = MINIMAL + "plugins:\n  grid_site_route:\n    load: {%s}\n";
        String affinity = MINIMAL + "plugins:\n  grid_site_route:\n    prefix_affinity: {%s}\n";
        return Stream.of(
                arguments(
                        "poll_interval_ms zero",
                        load.formatted("poll_interval_ms: 0"),
                        ROUTE + ".load.poll_interval_ms: 0 (expected: > 0)"),
                arguments(
                        "window shorter than poll",
                        load.formatted("poll_interval_ms: 2000, window_secs: 1"),
                        ROUTE + ".load.window_secs: 1 (expected: at least poll_interval_ms (2000 ms), so that every"
                                + " window holds a sample)"),
                arguments(
                        "window beyond the clock",
                        load.formatted("window_secs: 9223372037"),
                        ROUTE + ".load.window_secs: 9223372037 (expected: at most 9223372036, what the monotonic"
                                + " clock holds in nanoseconds)"),
                arguments(
                        "queue_metric with a space",
                        load.formatted("queue_metric: \"num waiting\""),
                        ROUTE + ".load.queue_metric: \"num waiting\" (expected: a Prometheus metric name)"),
                arguments(
                        "order_by not a known order",
                        load.formatted("order_by: ttft"),
                        ROUTE + ".load.order_by: \"ttft\" (expected: depth or expected_wait)"),
                arguments(
                        "capacity zero",
                        affinity.formatted("capacity: 0"),
                        ROUTE + ".prefix_affinity.capacity: 0 (expected: > 0)"),
                arguments(
                        "capacity over an int",
                        affinity.formatted("capacity: 3000000000"),
                        ROUTE + ".prefix_affinity.capacity: 3000000000 (expected: at most 2147483647)"),
                arguments(
                        "ttl_secs zero",
                        affinity.formatted("ttl_secs: 0"),
                        ROUTE + ".prefix_affinity.ttl_secs: 0 (expected: > 0)"),
                arguments(
                        "ttl_secs beyond the clock",
                        affinity.formatted("ttl_secs: 9223372037"),
                        ROUTE + ".prefix_affinity.ttl_secs: 9223372037 (expected: at most 9223372036, what the"
                                + " monotonic clock holds in nanoseconds)"),
                arguments(
                        "ttl_secs beyond a long",
                        affinity.formatted("ttl_secs: 99999999999999999999"),
                        ROUTE + ".prefix_affinity.ttl_secs: 99999999999999999999 (expected: at most 9223372036,"
                                + " what the monotonic clock holds in nanoseconds)"),
                arguments(
                        "prefill infinite",
                        affinity.formatted("prefill_tokens_per_second: .inf"),
                        ROUTE + ".prefix_affinity.prefill_tokens_per_second: Infinity (expected: a finite number >"
                                + " 0, or auto)"),
                arguments(
                        "queued seconds negative",
                        affinity.formatted("queued_request_seconds: -0.5"),
                        ROUTE
                                + ".prefix_affinity.queued_request_seconds: -0.5 (expected: a finite number > 0, or auto)"),
                arguments(
                        "queued seconds a string",
                        affinity.formatted("queued_request_seconds: two"),
                        ROUTE + ".prefix_affinity.queued_request_seconds: \"two\" (expected: a finite number > 0,"
                                + " or auto)"),
                arguments(
                        "capacity a word other than auto",
                        affinity.formatted("capacity: automatic"),
                        ROUTE + ".prefix_affinity.capacity: \"automatic\" (expected: an integer > 0, or auto)"),
                arguments(
                        "prefill auto in capitals",
                        affinity.formatted("prefill_tokens_per_second: AUTO"),
                        ROUTE + ".prefix_affinity.prefill_tokens_per_second: \"AUTO\" (expected: a finite number > 0,"
                                + " or auto)"),
                arguments(
                        "learn_from_usage not a boolean",
                        affinity.formatted("learn_from_usage: sometimes"),
                        ROUTE + ".prefix_affinity.learn_from_usage: \"sometimes\" (expected: true or false)"),
                arguments(
                        "count_sent_since_scrape not a boolean",
                        load.formatted("count_sent_since_scrape: 1"),
                        ROUTE + ".load.count_sent_since_scrape: 1 (expected: true or false)"),
                arguments(
                        "prefix affinity unknown key",
                        affinity.formatted("size: 5"),
                        ROUTE + ".prefix_affinity.size: unknown key (expected: one of capacity, ttl_secs,"
                                + " prefill_tokens_per_second, queued_request_seconds, learn_from_usage,"
                                + " sharing)"),
                arguments(
                        "unknown plugin",
                        MINIMAL + "plugins: {round_robin: {}}\n",
                        "plugins.round_robin: unknown key (expected: one of grid_site_route)"));
    }

    static Stream<Arguments> shapes() {
        return Stream.of(arguments(
                "list item not a mapping",
                MINIMAL.replace("      - name: east-a", "      - east-a\n      - name: x"),
                "sites[0].clusters[0]: \"east-a\" (expected: a mapping)"));
    }

    private static String siteNameProblem(String name) {
        try {
            new SiteName(name);
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        throw new AssertionError(name + " is a valid site name");
    }
}

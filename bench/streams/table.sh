#!/usr/bin/env bash
# Formats bench/streams/run.sh's result lines ("N PATH key=value ...", on stdin) as one Markdown table per N, with the
# gateway's ratios to nginx and its added first-event p99 over direct's under each. $1: the load average before the run.
set -euo pipefail
echo "Long streams, $(date -u +%Y-%m-%d), commit $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo unknown);"
echo "$(nproc) cores, load average before the run $1, after it $(cut -d ' ' -f 1-3 /proc/loadavg); open-file hard limit $(ulimit -Hn)."
awk '
function field(line, key,    i, parts, kv) {
    split(line, parts, " ")
    for (i in parts) {
        split(parts[i], kv, "=")
        if (kv[1] == key) return substr(parts[i], length(key) + 2)
    }
    return ""
}
{
    n = $1; path = $2; rows[n, path] = $0
    if (!(n in seen)) { seen[n] = 1; order[++count] = n }
    paths[n] = paths[n] " " path
}
END {
    for (c = 1; c <= count; c++) {
        n = order[c]
        printf "\n**N = %s**\n\n", n
        print "| path | open | memory KiB/stream | RSS KiB/stream | heap KiB/stream | RSS MiB | CPU ms/1,000 events | events/s | lost | duplicated | errors | first event p50 ms | p99 ms | slow readers open |"
        print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        split(substr(paths[n], 2), list, " ")
        for (p = 1; p <= length(list); p++) {
            line = rows[n, list[p]]
            printf "| %s | %s | %.1f | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", list[p], field(line, "open"),
                field(line, "rss_kib_per_stream") + field(line, "heap_kib_per_stream"),
                field(line, "rss_kib_per_stream"), field(line, "heap_kib_per_stream"), field(line, "rss_mib"),
                field(line, "cpu_ms_per_1000_events"), field(line, "events_per_s"), field(line, "lost"),
                field(line, "duplicated"), field(line, "errors"), field(line, "p50_ms"), field(line, "p99_ms"),
                field(line, "slow_open")
        }
        g = rows[n, "gateway"]; x = rows[n, "nginx"]; d = rows[n, "direct"]
        if (g != "" && x != "" && field(x, "rss_kib_per_stream") > 0 && field(x, "cpu_ms_per_1000_events") > 0) {
            printf "\ngateway ÷ nginx: memory per stream %.2f×, CPU per event %.2f×", \
                (field(g, "rss_kib_per_stream") + field(g, "heap_kib_per_stream")) / field(x, "rss_kib_per_stream"), \
                field(g, "cpu_ms_per_1000_events") / field(x, "cpu_ms_per_1000_events")
        }
        if (g != "" && d != "") {
            printf "; added first-event p99 over direct: gateway %+.2f ms", field(g, "p99_ms") - field(d, "p99_ms")
            if (x != "") printf ", nginx %+.2f ms", field(x, "p99_ms") - field(d, "p99_ms")
        }
        print ""
        for (p = 1; p <= length(list); p++) {
            e = field(rows[n, list[p]], "first_errors")
            if (e != "") printf "\nfirst errors (%s): %s\n", list[p], e
        }
    }
}'

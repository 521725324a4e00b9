# Merges the result lines of the load clients of one run (key=value pairs, the first client's line first) into one:
# counts are summed over the clients, the proxy's readings and the probes are the first client's (it alone measures),
# and the per-stream and per-event figures are computed over all N streams (-v n=N -v slow=SLOW_READERS).
{
    for (i = 1; i <= NF; i++) {
        split($i, kv, "=")
        key = kv[1]
        value = substr($i, length(key) + 2)
        if (key ~ /^(open_at_window|open_after_window|complete|lost|duplicated|errors|events)$/) {
            sum[key] += value
        } else if (NR == 1) {
            first[key] = value
        }
    }
}
END {
    streams = n + slow
    printf "open=%d open_after=%d slow_open=%s complete=%d lost=%d duplicated=%d errors=%d", sum["open_at_window"],
        sum["open_after_window"], first["slow_open"], sum["complete"], sum["lost"], sum["duplicated"], sum["errors"]
    printf " events_per_s=%.0f", sum["events"] / first["window_s"]
    printf " cpu_ms_per_1000_events=%.1f", (sum["events"] > 0 ? first["cpu_s"] / sum["events"] * 1e6 : 0)
    printf " rss_mib=%.0f rss_kib_per_stream=%.1f", first["rss_kib"] / 1024, (first["rss_kib"] - first["rss_idle_kib"]) / streams
    printf " heap_mib=%.0f heap_kib_per_stream=%.1f", first["heap_kib"] / 1024, (first["heap_kib"] - first["heap_idle_kib"]) / streams
    printf " p50_ms=%s p99_ms=%s first_errors=%s\n", first["first_event_p50_ms"], first["first_event_p99_ms"], first["first_errors"]
}

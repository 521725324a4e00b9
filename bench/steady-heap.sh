#!/usr/bin/env bash
# Heap of the packaged gateway under a steady load: does it grow?
#
#   bench/steady-heap.sh [minutes]        default 4 minutes of load; stops by itself
#
# Starts three engine simulators in instant mode (no simulated prefill or decode time, so the gateway is the
# bottleneck) and app/target/grid-gateway.jar in front of them, all on 127.0.0.1:18201-18211. The prefix memory
# is set to 256 entries per cluster (the default is 16,384) so that it is full within a second and then keeps
# turning over. wrk sends Chat Completions at a steady pace for the whole run: half new prompts, half repeated
# ones, one in four streamed (bench/steady-heap.lua). Every SAMPLE_SECS the script forces a full GC of the gateway
# (jcmd GC.run) and records the heap in use after it (from the gateway's GC log), RSS, threads and open
# file descriptors, and the prefix entries and request count from the admin port. At the end it compares the
# samples after the warm-up (first, last, least-squares slope) and prints PASS or FAIL: the heap after GC grows by
# no more than max(1 MiB, 5%) from the first to the last sample, nor along the slope over the same span; threads and
# descriptors grow by no more than max(4, 10%); and at most 1% of requests fail.
#
# Environment: RATE (requests per second, default 200), CONNECTIONS (default 8), SAMPLE_SECS (default 10),
# WARMUP_SECS (default 60), GATEWAY_HEAP (default 256m). Installs wrk with apt-get when it is missing; builds the
# jars with Maven when they are missing or older than the sources. Results: target/steady-heap/<time>/ (config,
# logs, samples.csv, report.txt). Kills everything it started when it ends, also on Ctrl-C.
set -euo pipefail
# shellcheck source=bin/lib/common.sh
. "$(dirname "$0")/../bin/lib/common.sh"
cd "$GRID_REPO"

minutes=${1:-4}
rate=${RATE:-200}
connections=${CONNECTIONS:-8}
sample_secs=${SAMPLE_SECS:-10}
warmup_secs=${WARMUP_SECS:-60}
gateway_heap=${GATEWAY_HEAP:-256m}
host=127.0.0.1
engine_ports=(18201 18202 18203)
engine_names=(east-a east-b west-a)
port=18210
admin_port=18211
capacity=256

if ! [[ $minutes =~ ^[0-9]+$ && $minutes -ge 1 ]]; then
    echo "usage: bench/steady-heap.sh [minutes >= 1]" >&2
    exit 2
fi
if ((minutes * 60 <= warmup_secs + 2 * sample_secs)); then
    echo "steady-heap: $minutes min leaves no samples after the ${warmup_secs} s warm-up; lower WARMUP_SECS" >&2
    exit 2
fi

require_jdk21 steady-heap jcmd
if ! command -v wrk >/dev/null 2>&1; then
    echo "steady-heap: installing wrk with apt-get"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk
fi
for tool in curl awk; do
    command -v "$tool" >/dev/null 2>&1 || { echo "steady-heap: needs $tool" >&2; exit 1; }
done

gateway_jar=app/target/grid-gateway.jar
engine_jar=engine-sim/target/engine-simulator.jar
build_if_stale steady-heap "$gateway_jar" "$engine_jar" -- routing-core/src/main app/src/main engine-sim/src/main \
    -- -DskipTests package

for p in "${engine_ports[@]}" "$port" "$admin_port"; do
    if (exec 3<>"/dev/tcp/$host/$p") 2>/dev/null; then
        echo "steady-heap: $host:$p is in use; stop whatever listens there first" >&2
        exit 1
    fi
done

run=target/steady-heap/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$run"
started=()
# shellcheck disable=SC2317  # called by the EXIT trap, which shellcheck 0.9 does not follow
cleanup() {
    local pid
    for pid in "${started[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${started[@]}"; do
        for _ in 1 2 3 4 5 6 7 8 9 10; do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.5
        done
        kill -9 "$pid" 2>/dev/null || true
    done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Waits until file $1 holds text $2 (a process printed that it listens), at most 90 s.
await_line() {
    local file=$1 text=$2 pid=$3
    for _ in $(seq 1 180); do
        grep -q "$text" "$file" 2>/dev/null && return 0
        kill -0 "$pid" 2>/dev/null || { echo "steady-heap: process $pid died; see $file" >&2; exit 1; }
        sleep 0.5
    done
    echo "steady-heap: timed out waiting for '$text' in $file" >&2
    exit 1
}

cat >"$run/gateway.yaml" <<EOF
# Written by bench/steady-heap.sh: three instant engines, a prefix memory of $capacity entries per cluster.
server:
  port: $port
  admin_port: $admin_port
gateway:
  site: east
sites:
  - name: east
    clusters:
      - name: ${engine_names[0]}
        url: http://$host:${engine_ports[0]}
        models: [bench-model]
      - name: ${engine_names[1]}
        url: http://$host:${engine_ports[1]}
        models: [bench-model]
  - name: west
    clusters:
      - name: ${engine_names[2]}
        url: http://$host:${engine_ports[2]}
        models: [bench-model]
plugins:
  grid_site_route:
    prefix_affinity:
      capacity: $capacity
      ttl_secs: 600
EOF

for i in "${!engine_ports[@]}"; do
    "$jdk/bin/java" -Xmx192m -XX:+UseSerialGC -cp "$engine_jar:engine-sim/target/libs/*" \
        grid.gateway.enginesim.EngineSimulatorMain --host "$host" --port "${engine_ports[$i]}" \
        --name "${engine_names[$i]}" --model bench-model --instant --slots 64 \
        >"$run/engine-${engine_names[$i]}.log" 2>&1 &
    started+=($!)
done
# A fixed, pre-touched heap: RSS then starts with the whole heap in it, so its growth is native memory alone.
"$jdk/bin/java" "-Xms$gateway_heap" "-Xmx$gateway_heap" -XX:+AlwaysPreTouch -XX:+UseG1GC \
    "-Xlog:gc,gc+heap=debug:file=$run/gc.log" \
    -jar "$gateway_jar" \
    --config "$run/gateway.yaml" >"$run/gateway.log" 2>&1 &
gateway_pid=$!
started+=("$gateway_pid")
for i in "${!engine_ports[@]}"; do
    await_line "$run/engine-${engine_names[$i]}.log" "listening port=" "${started[$i]}"
done
await_line "$run/gateway.log" "grid-gateway listening port=" "$gateway_pid"
for _ in $(seq 1 60); do
    [[ $(curl -s -o /dev/null -w '%{http_code}' "http://$host:$admin_port/health/ready") == 200 ]] && break
    sleep 0.5
done

# Sums the values of metric $1 in the admin port's Prometheus text (0 when absent).
metric_sum() {
    curl -s --max-time 5 "http://$host:$admin_port/metrics" \
        | awk -v name="$1" 'index($0, name) == 1 && $0 !~ /^#/ { sum += $NF } END { printf "%d", sum }'
}

# The heap in use (KiB) after the last full collection (jcmd GC.run) in the gateway's GC log, as G1 itself reports it
# ("Heap After GC ... used NK"), so that no allocation between the collection and the reading can creep in.
heap_after_last_full_gc() {
    awk '
        /Heap After GC/ { after = 1; next }
        after && /used [0-9]+K/ {
            id = gcid(); match($0, /used [0-9]+K/); used[id] = substr($0, RSTART + 5, RLENGTH - 6); after = 0
        }
        /Pause Full \(/ { last = used[gcid()] }
        END { print last + 0 }
        function gcid() { match($0, /GC\([0-9]+\)/); return substr($0, RSTART, RLENGTH) }' "$run/gc.log"
}

# One line of samples.csv: seconds since load start, heap used after a full GC (KiB), RSS (KiB), threads, fds,
# prefix entries, upstream requests.
sample() {
    local elapsed=$1 fulls heap rss threads fds
    fulls=$(grep -c 'Pause Full (' "$run/gc.log" || true)
    "$jdk/bin/jcmd" "$gateway_pid" GC.run >/dev/null
    for _ in $(seq 1 20); do
        (($(grep -c 'Pause Full (' "$run/gc.log" || true) > fulls)) && break
        sleep 0.25
    done
    heap=$(heap_after_last_full_gc)
    rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$gateway_pid/status")
    threads=$(awk '/^Threads:/ { print $2 }' "/proc/$gateway_pid/status")
    fds=$(find "/proc/$gateway_pid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
    echo "$elapsed,$heap,$rss,$threads,$fds,$(metric_sum grid_prefix_index_entries),$(metric_sum grid_upstream_requests_total)" \
        >>"$run/samples.csv"
}

duration=$((minutes * 60))
pause_ms=$((connections * 1000 / rate))
echo "steady-heap: $minutes min at ~$rate req/s ($connections connections, ${pause_ms} ms pause each)," \
    "prefix capacity $capacity per cluster, samples every ${sample_secs} s, warm-up ${warmup_secs} s; results in $run"
echo "elapsed_s,heap_kib,rss_kib,threads,fds,prefix_entries,upstream_requests" >"$run/samples.csv"
sample 0
wrk -t 2 -c "$connections" -d "${duration}s" --timeout 10s --latency -s bench/steady-heap.lua \
    "http://$host:$port" -- "$pause_ms" >"$run/wrk.txt" 2>&1 &
wrk_pid=$!
started+=("$wrk_pid")
start=$SECONDS
next=$sample_secs
while kill -0 "$wrk_pid" 2>/dev/null; do
    if ((SECONDS - start >= next)); then
        sample "$((SECONDS - start))"
        next=$((next + sample_secs))
        # What the heap holds at the first sample after the warm-up, to compare with the end (see below).
        if [[ ! -f "$run/histogram-first.txt" ]] && ((SECONDS - start >= warmup_secs)); then
            "$jdk/bin/jcmd" "$gateway_pid" GC.class_histogram >"$run/histogram-first.txt"
        fi
    fi
    sleep 1
done
wait "$wrk_pid" || true
sample "$((SECONDS - start))"
"$jdk/bin/jcmd" "$gateway_pid" GC.class_histogram >"$run/histogram-last.txt"

# The 12 classes whose bytes grew most between two jcmd GC.class_histogram outputs, where to look for a leak.
histogram_growth() {
    [[ -f $1 && -f $2 ]] || { echo "(no histograms)"; return 0; }
    awk '$1 ~ /^[0-9]+:$/ {
            if (FILENAME == ARGV[1]) { b0[$4] = $3; i0[$4] = $2 } else { b1[$4] = $3; i1[$4] = $2 }
        }
        END { for (c in b1) printf "%12d bytes %9d instances  %s\n", b1[c] - b0[c], i1[c] - i0[c], c }' "$1" "$2" \
        | sort -k1,1nr | awk 'NR <= 12'  # not head: its early exit would fail the pipe (pipefail)
}

requests=$(awk '/requests in/ { print $1 }' "$run/wrk.txt")
errors=$(awk '/Non-2xx/ { n += $NF } /Socket errors/ { gsub(/,/, ""); n += $4 + $6 + $8 + $10 } END { print n + 0 }' \
    "$run/wrk.txt")
awk -F, -v warmup="$warmup_secs" -v requests="${requests:-0}" -v errors="$errors" -v capacity="$capacity" \
    -v duration="$duration" -v total="$(wc -l <"$run/samples.csv")" '
    NR == 1 { next }
    $1 + 0 < warmup { next }
    {
        n++; t[n] = $1; h[n] = $2; r[n] = $3; th[n] = $4; fd[n] = $5; entries = $6; q[n] = $7
        if (n > 1 && t[n] > t[n - 1] && NR < total) {  # the last sample comes after the load ended
            rate = (q[n] - q[n - 1]) / (t[n] - t[n - 1])
            if (n == 2 || rate < rmin) rmin = rate
            if (n == 2 || rate > rmax) rmax = rate
        }
        if (n == 1 || $2 < hmin) hmin = $2
        if (n == 1 || $2 > hmax) hmax = $2
    }
    END {
        if (n < 2) { print "FAIL: fewer than two samples after the warm-up"; exit 1 }
        for (i = 1; i <= n; i++) { st += t[i]; sh += h[i] }
        mt = st / n; mh = sh / n
        for (i = 1; i <= n; i++) { num += (t[i] - mt) * (h[i] - mh); den += (t[i] - mt) ^ 2 }
        slope = num / den                       # KiB per second
        span = t[n] - t[1]
        tol = h[1] * 0.05; if (tol < 1024) tol = 1024
        growth = h[n] - h[1]
        thr_tol = th[1] * 0.10; if (thr_tol < 4) thr_tol = 4
        fd_tol = fd[1] * 0.10; if (fd_tol < 4) fd_tol = 4
        printf "requests %d (%.1f/s), failed %d; prefix entries at the end %d (capacity %d x 3 clusters)\n", \
            requests, requests / duration, errors, entries, capacity
        printf "samples after warm-up: %d over %d s (t = %d..%d s); upstream requests per second between samples: %.1f..%.1f\n", \
            n, span, t[1], t[n], rmin, rmax
        printf "heap after full GC: first %.1f MiB, last %.1f MiB, min %.1f, max %.1f, growth %+.1f KiB (%+.2f%%)\n", \
            h[1] / 1024, h[n] / 1024, hmin / 1024, hmax / 1024, growth, 100 * growth / h[1]
        printf "heap slope: %+.1f KiB/min (%+.1f KiB over the span; tolerance %.0f KiB)", slope * 60, slope * span, tol
        if (q[n] > q[1]) printf "; %+.1f bytes per request (%d requests in the span)", growth * 1024 / (q[n] - q[1]), q[n] - q[1]
        printf "\n"
        printf "RSS: first %.1f MiB, last %.1f MiB\n", r[1] / 1024, r[n] / 1024
        printf "threads: first %d, last %d; fds: first %d, last %d\n", th[1], th[n], fd[1], fd[n]
        ok = growth <= tol && slope * span <= tol && th[n] - th[1] <= thr_tol && fd[n] - fd[1] <= fd_tol
        if (requests == 0 || errors > requests * 0.01) ok = 0
        print (ok ? "PASS" : "FAIL") ": heap after GC " (growth <= tol && slope * span <= tol ? "flat" : "GROWS") \
            ", threads " (th[n] - th[1] <= thr_tol ? "flat" : "GROW") ", fds " (fd[n] - fd[1] <= fd_tol ? "flat" : "GROW") \
            ", failed requests " (requests > 0 && errors <= requests * 0.01 ? "<= 1%" : "TOO MANY")
        exit (ok ? 0 : 1)
    }' "$run/samples.csv" >"$run/report.txt" && verdict=0 || verdict=$?
{
    echo "== wrk =="
    sed -n '/Latency Distribution/,/Transfer/p' "$run/wrk.txt"
    echo "== samples ($run/samples.csv) =="
    cat "$run/samples.csv"
    echo "== classes whose instances grew most from the first histogram after the warm-up to the last =="
    histogram_growth "$run/histogram-first.txt" "$run/histogram-last.txt"
    echo "== report =="
    cat "$run/report.txt"
}
exit "$verdict"

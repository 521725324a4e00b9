#!/usr/bin/env bash
# Before/after on a shared machine: two gateway jars side by side in front of one nginx upstream, measured in
# alternating windows (the order flips every round), so a slow minute of the machine lands on both alike.
#
#   bench/side-by-side/ab.sh BEFORE_JAR AFTER_JAR [ROUNDS]
#
# ROUNDS (default 4) should be even: the window measured second in a round tends to be the slower one on a busy
# host, and the order flips every round, so only an even count gives both jars that place equally often.
#
# Each jar's libs/ must sit beside it. Loads: the side-by-side Chat Completions bodies of 1 and 32 KiB, for the model
# one cluster serves (never keyed) and for a model two clusters serve (keyed: both clusters are the same
# nginx on two ports). h2load --h1 -t 1 -c 16, 1 s of warm-up then 8 s measured per window; every JVM first gets 30 s
# of every load. Per window: successful answers, CPU µs per answer of the gateway JVM (utime+stime from /proc),
# KiB allocated per answer (young collections in its GC log plus the heap in use at both ends, from jstat). JVM
# options for both: -Xms512m -Xmx512m -Xmn128m. Ports 18200-18215 on 127.0.0.1. Prints one line per window and the
# medians per load and jar at the end (also in work/ab/results.txt). Installs nginx, h2load, node and curl when
# missing and finds its JDK as run.sh does (tools.sh, bin/lib/common.sh); the upstream and the per-window figures
# are measure.sh's, shared with layers.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bin/lib/common.sh
. "$here/../../bin/lib/common.sh"
# shellcheck source=bench/side-by-side/tools.sh
. "$here/tools.sh"
# shellcheck source=bench/side-by-side/measure.sh
. "$here/measure.sh"
before_jar=$1 after_jar=$2 rounds=${3:-4}
work=$here/work/ab
# The same tools and JDK as run.sh (installed when missing); jstat reads the heap in use.
install_missing nginx h2load node curl
require_jdk21 ab.sh --install jstat
readonly UP_A=18200 UP_B=18201
node "$here/bodies.mjs" "$work/bodies" bench-model bench-stream >/dev/null
for size in 1k 32k; do
    # Same length as bench-model, so the bodies keep their exact sizes.
    sed 's/"model":"bench-model"/"model":"bench-keyed"/' "$work/bodies/chat-$size.json" >"$work/bodies/keyed-$size.json"
done
write_fixed_upstream "$work/nginx" "$UP_A" "$UP_B"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    [[ -f $work/nginx/nginx.pid ]] && kill "$(cat "$work/nginx/nginx.pid")" 2>/dev/null || true
}
trap cleanup EXIT
"$(nginx_bin)" -q -c "$work/nginx/nginx.conf" -p "$work/nginx" -e "$work/nginx/logs/error.log"
echo "ab-bench-tag-key-000000000001" >"$work/tag-key"
declare -A pid_of port_of
start() { # name jar port
    local name=$1 jar=$2 port=$3
    cat >"$work/$name.yaml" <<EOF
server:
  port: $port
  admin_port: $((port + 1))
gateway:
  site: bench
  tag_key_path: $work/tag-key
sites:
  - name: bench
    clusters:
      - name: fixed
        url: http://127.0.0.1:$UP_A
        models: [bench-model, bench-keyed]
      - name: fixed-b
        url: http://127.0.0.1:$UP_B
        models: [bench-keyed]
EOF
    rm -f "$work/gc-$name.log"
    "$jdk/bin/java" -Xms512m -Xmx512m -Xmn128m "-Xlog:gc:file=$work/gc-$name.log::filecount=0" \
        -jar "$jar" --config "$work/$name.yaml" >"$work/$name.out" 2>&1 &
    pid_of[$name]=$!
    port_of[$name]=$port
    pids+=($!)
}
start before "$before_jar" 18210
start after "$after_jar" 18212
for name in before after; do
    for _ in $(seq 1 150); do
        curl -s -o /dev/null -m 1 "http://127.0.0.1:$((port_of[$name] + 1))/health/live" && break
        sleep 0.2
    done
done
load() { # name body seconds [log]
    local url=http://127.0.0.1:${port_of[$1]}/v1/chat/completions
    h2load --h1 -t 1 -c 16 -D "$3" -d "$work/bodies/$2.json" -H 'content-type: application/json' \
        -H 'authorization: Bearer sk-bench' ${4:+--log-file=$4} "$url" >"$work/h2load.out" 2>&1 || true
}
loads=(chat-1k chat-32k keyed-1k keyed-32k)
for name in before after; do
    for body in "${loads[@]}"; do load "$name" "$body" 8; done
done
: >"$work/windows.txt"
window() { # name body: one measured window, appended to windows.txt
    local name=$1 body=$2 pid=${pid_of[$1]} gc_from t0 t1 h0 h1 ok alloc
    load "$name" "$body" 1
    gc_from=$(wc -l <"$work/gc-$name.log")
    h0=$(heap_kb "$pid")
    t0=$(proc_ticks "$pid")
    rm -f "$work/h2load.tsv"
    load "$name" "$body" 8 "$work/h2load.tsv"
    t1=$(proc_ticks "$pid")
    h1=$(heap_kb "$pid")
    ok=$(awk -F'\t' '$2 >= 200 && $2 < 300 { n++ } END { print n + 0 }' "$work/h2load.tsv")
    alloc=$(alloc_kb "$work/gc-$name.log" "$gc_from" "$h0" "$h1")
    awk -v n="$ok" -v t=$((t1 - t0)) -v hz="$(getconf CLK_TCK)" -v a="$alloc" -v name="$name" -v body="$body" \
        'BEGIN { printf "%s %s %d %.0f %.1f\n", body, name, n / 8, t / hz * 1e6 / n, a / n }' | tee -a "$work/windows.txt"
}
for ((round = 1; round <= rounds; round++)); do
    order=(before after)
    ((round % 2 == 0)) && order=(after before)
    for body in "${loads[@]}"; do
        for name in "${order[@]}"; do window "$name" "$body"; done
    done
done
{
    echo "load jar req/s cpu_us_per_req kib_alloc_per_req (medians of $rounds rounds; load average now $(cut -d ' ' -f 1-3 /proc/loadavg))"
    for body in "${loads[@]}"; do
        for name in before after; do
            median() { awk -v b="$body" -v n="$name" -v f="$1" '$1 == b && $2 == n { print $f }' "$work/windows.txt" |
                sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
            echo "$body $name $(median 3) $(median 4) $(median 5)"
        done
    done
    # The figure to quote: the median over rounds of after ÷ before within one round (same minute of the machine).
    echo "load cpu_after_over_before req_s_after_over_before (medians of the same-round ratios)"
    for body in "${loads[@]}"; do
        awk -v b="$body" '$1 == b { if ($2 == "before") { bc = $4; bq = $3 } else { ac = $4; aq = $3 }
                n++; if (n % 2 == 0) { print ac / bc, aq / bq } }' "$work/windows.txt" >"$work/ratios.txt"
        cpu=$(cut -d ' ' -f 1 "$work/ratios.txt" | sort -g | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] }')
        req=$(cut -d ' ' -f 2 "$work/ratios.txt" | sort -g | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] }')
        echo "$body $cpu $req"
    done
    ((rounds % 2 == 0)) || echo "note: $rounds rounds is odd; one jar was measured first more often"
} | tee "$work/results.txt"

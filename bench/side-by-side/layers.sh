#!/usr/bin/env bash
# The framework's layers and settings, one at a time: the tuned Helidon pass-through
# (PassThroughProxy tuned) against variants of it that each change ONE client or server setting or layer
# (PassThroughProxy --list), every one a JVM of its own in front of the same nginx upstream (as ab.sh sets it up).
#
#   bench/side-by-side/layers.sh [ROUNDS] [VARIANT...]
#
# ROUNDS (default 4) should be even: the order of the variants is reversed every round, so each is measured early
# and late in a round equally often. VARIANT... (default: all) picks some. Environment: WINDOW (seconds measured per
# window, default 3), JVM_WARM (seconds of unmeasured load per JVM and body size before the first round, default 8:
# 16 s a JVM).
#
# Method (ab.sh's, stretched to many variants on a shared machine): per round and body size (the side-by-side chat
# bodies of 1 and 32 KiB, h2load --h1 -t 1 -c 16), the variants are measured in blocks of four with a `tuned` window
# before and after every block, each window 1 s of warm-up then WINDOW s measured. A variant's same-round ratio is its
# figure over the mean of the two `tuned` windows around its block; the table gives the median of those ratios over
# the rounds (and their range), so a slow minute of the machine lands on both sides of a ratio. Per window: answers,
# CPU µs per answer of the JVM (utime+stime, /proc), KiB allocated per answer (GC log and jstat; measure.sh).
# JVM options: -Xms256m -Xmx256m -Xmn128m (the young generation of ab.sh's JVMs). Ports 18300 (nginx) and
# 18310-18349 on 127.0.0.1. Writes work/layers/windows.txt and work/layers/results.md (also printed). One full run
# (every variant of --list, the control among them: 18) takes about 21 minutes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bin/lib/common.sh
. "$here/../../bin/lib/common.sh"
# shellcheck source=bench/side-by-side/tools.sh
. "$here/tools.sh"
# shellcheck source=bench/side-by-side/measure.sh
. "$here/measure.sh"
repo=$GRID_REPO
rounds=${1:-4}
shift || true
window_s=${WINDOW:-3}
jvm_warm=${JVM_WARM:-8}
work=$here/work/layers
readonly UPSTREAM=18300 FIRST_PORT=18310 BLOCK=4
sizes=(1k 32k)

log() { printf '%s layers.sh: %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

install_missing nginx h2load node curl
require_jdk21 layers.sh --install jstat
mkdir -p "$work"
build_if_stale layers.sh app/target/grid-gateway.jar -- routing-core/src/main app/src/main -- -DskipTests package
compile_pass_through "$repo" "$work/classes"
classpath="$work/classes:$repo/app/target/libs/*"
node "$here/bodies.mjs" "$work/bodies" bench-model bench-stream >/dev/null

declare -A what
all=()
while IFS=$'\t' read -r name text; do
    what[$name]=$text
    all+=("$name")
done < <("$jdk/bin/java" -cp "$classpath" grid.gateway.app.bench.PassThroughProxy --list)
what[tuned]="the reference: PassThroughProxy tuned"
if [[ $# -gt 0 ]]; then variants=("$@"); else variants=("${all[@]}"); fi
for v in "${variants[@]}"; do
    [[ -n ${what[$v]:-} ]] || { echo "layers.sh: unknown variant $v (known: ${all[*]})" >&2; exit 2; }
done

write_fixed_upstream "$work/nginx" "$UPSTREAM"
pids=()
cleanup() {
    local pid
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    [[ -f $work/nginx/nginx.pid ]] && kill "$(cat "$work/nginx/nginx.pid")" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM
"$(nginx_bin)" -q -c "$work/nginx/nginx.conf" -p "$work/nginx" -e "$work/nginx/logs/error.log"

# Before the JVMs start (their start-up would count).
load_before=$(cut -d ' ' -f 1-3 /proc/loadavg)
declare -A pid_of port_of
port=$FIRST_PORT
for v in tuned "${variants[@]}"; do
    rm -f "$work/gc-$v.log"
    "$jdk/bin/java" -Xms256m -Xmx256m -Xmn128m "-Xlog:gc:file=$work/gc-$v.log::filecount=0" -cp "$classpath" \
        grid.gateway.app.bench.PassThroughProxy "$port" "http://127.0.0.1:$UPSTREAM" "$v" >"$work/$v.out" 2>&1 &
    pid_of[$v]=$!
    port_of[$v]=$port
    pids+=($!)
    port=$((port + 1))
done
for v in tuned "${variants[@]}"; do
    for _ in $(seq 1 300); do
        curl -s -o /dev/null -m 1 "http://127.0.0.1:${port_of[$v]}/metrics" && break
        sleep 0.2
    done
    curl -s -f -o /dev/null -m 2 "http://127.0.0.1:${port_of[$v]}/metrics" ||
        { echo "layers.sh: variant $v did not come up (see $work/$v.out)" >&2; exit 1; }
done

load() { # variant size seconds [log]
    h2load --h1 -t 1 -c 16 -D "$3" -d "$work/bodies/chat-$2.json" -H 'content-type: application/json' \
        -H 'authorization: Bearer sk-bench' ${4:+--log-file=$4} \
        "http://127.0.0.1:${port_of[$1]}/v1/chat/completions" >"$work/h2load.out" 2>&1 || true
}
log "warming ${#variants[@]} variants and tuned: ${jvm_warm}s per body size each"
for v in tuned "${variants[@]}"; do
    for size in "${sizes[@]}"; do load "$v" "$size" "$jvm_warm"; done
done

: >"$work/windows.txt"
window() { # round size variant block: one measured window, appended to windows.txt
    local round=$1 size=$2 v=$3 block=$4 pid=${pid_of[$3]} gc_from t0 t1 h0 h1 ok alloc
    load "$v" "$size" 1
    gc_from=$(wc -l <"$work/gc-$v.log")
    h0=$(heap_kb "$pid")
    t0=$(proc_ticks "$pid")
    rm -f "$work/h2load.tsv"
    load "$v" "$size" "$window_s" "$work/h2load.tsv"
    t1=$(proc_ticks "$pid")
    h1=$(heap_kb "$pid")
    ok=$(awk -F'\t' '$2 >= 200 && $2 < 300 { n++ } END { print n + 0 }' "$work/h2load.tsv")
    alloc=$(alloc_kb "$work/gc-$v.log" "$gc_from" "$h0" "$h1")
    # round size variant block req/s cpu_us_per_req kib_per_req
    awk -v n="$ok" -v t=$((t1 - t0)) -v hz="$(getconf CLK_TCK)" -v a="$alloc" -v s="$window_s" \
        -v head="$round $size $v $block" \
        'BEGIN { if (n == 0) { print head " 0 - -"; exit } printf "%s %.0f %.1f %.1f\n", head, n / s, t / hz * 1e6 / n, a / n }' |
        tee -a "$work/windows.txt" >&2
}
for ((round = 1; round <= rounds; round++)); do
    order=("${variants[@]}")
    if ((round % 2 == 0)); then
        order=()
        for ((i = ${#variants[@]} - 1; i >= 0; i--)); do order+=("${variants[i]}"); done
    fi
    for size in "${sizes[@]}"; do
        block=0
        window "$round" "$size" tuned "$block"
        for ((i = 0; i < ${#order[@]}; i++)); do
            window "$round" "$size" "${order[i]}" "$block"
            if (((i + 1) % BLOCK == 0 || i + 1 == ${#order[@]})); then
                block=$((block + 1))
                window "$round" "$size" tuned "$block"
            fi
        done
    done
done

# A variant's window in block b is compared with the tuned windows b and b+1 (before and after it) of its round and
# size: ratio = variant / mean of the two. Per variant and size: median (and range) of the ratios over the rounds.
report() {
    echo "### Layer run $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo
    echo "$(nproc) CPUs ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1)); load average before the run" \
        "$load_before, after it $(cut -d ' ' -f 1-3 /proc/loadavg); $rounds rounds of ${window_s}s windows;" \
        "$("$jdk/bin/java" -version 2>&1 | head -n 1)."
    echo
    echo "| variant | what it changes | 1 KiB CPU µs/req | 1 KiB CPU ÷ tuned (range) | 1 KiB req/s ÷ tuned | 1 KiB KiB alloc/req | 32 KiB CPU µs/req | 32 KiB CPU ÷ tuned (range) | 32 KiB req/s ÷ tuned | 32 KiB KiB alloc/req |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    local v cells size
    for v in tuned "${variants[@]}"; do
        cells=""
        for size in "${sizes[@]}"; do
            cells+=$(awk -v v="$v" -v size="$size" '
                function median(a, n,   i, j, t) {
                    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
                }
                $2 != size || $5 == 0 { next }
                $3 == "tuned" { tq[$1, $4] = $5; tc[$1, $4] = $6 }
                $3 == v { n++; r[n] = $1; b[n] = $4; q[n] = $5; c[n] = $6; k[n] = $7 }
                END {
                    for (i = 1; i <= n; i++) {
                        cpu[i] = c[i]; kib[i] = k[i]
                        if (v != "tuned") {
                            ref_c = (tc[r[i], b[i]] + tc[r[i], b[i] + 1]) / 2
                            ref_q = (tq[r[i], b[i]] + tq[r[i], b[i] + 1]) / 2
                            rc[i] = c[i] / ref_c; rq[i] = q[i] / ref_q
                            lo = (i == 1 || rc[i] < lo) ? rc[i] : lo; hi = (i == 1 || rc[i] > hi) ? rc[i] : hi
                        }
                    }
                    if (n == 0) { printf " | - | - | - | -"; exit }
                    m_cpu = median(cpu, n); m_kib = median(kib, n)
                    if (v == "tuned") { printf " | %.0f | 1 | 1 | %.1f", m_cpu, m_kib; exit }
                    printf " | %.0f | **%.2f** (%.2f-%.2f) | %.2f | %.1f", m_cpu, median(rc, n), lo, hi, median(rq, n), m_kib
                }' "$work/windows.txt")
        done
        echo "| $v | ${what[$v]}$cells |"
    done
    echo
    echo "Effective server settings of the reference: $(grep -m 1 "pass-through (" "$work/tuned.out")"
}
report | tee "$work/results.md"

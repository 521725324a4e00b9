#!/usr/bin/env bash
# Long streams, side by side: N streamed Chat Completions held open at once, each answered by the engine simulator as
# server-sent events, measured on three paths in the same run:
#   direct    client -> engines
#   nginx     client -> nginx configured for SSE as an operator would (proxy_buffering off, HTTP/1.1 keep-alive to the
#             engines, worker_processes auto, reuseport, worker_connections and worker_rlimit_nofile sized for two
#             connections a stream) -> engines
#   gateway   client -> grid gateway (one site, the engines as its clusters, the chart's JVM flags) -> engines; as many
#             replicas as the open-file limit needs (below), each its own process and port, streams spread over them
# For each N and path: resident memory and Java heap after a full GC above idle, per stream; CPU seconds of the proxy
# per 1,000 events; streams that lost or duplicated events (each stream checks its token events against its usage
# chunk) and errors of any kind; the p50/p99 time from request to first event of a new stream opened while N are open.
# Among the N, --slow readers take one byte a second from a fast stream (their own engine: 2,000 events a second,
# 10,000 events, about 2 MiB), so a proxy that buffers what its client cannot take shows it in its memory. They are
# opened first: until each stalls, it fills the socket buffers on its path (megabytes a reader, relayed by the proxy),
# and that work is done before the window.
#
#   bench/streams/run.sh [--n "1000 5000 9000"] [--paths "direct nginx gateway"] [--gaps-ms "500 750 1000 1000"]
#                        [--stream-s 30] [--slow 100] [--open-rate R] [--warmup-s 20] [--settle-s 15] [--window-s 30]
#                        [--probes 400] [--keep-alive] [--replicas R] [--out FILE]
#
#   --n         stream counts, one run per count and path (default "1000 5000 9000")
#   --gaps-ms   one engine per value, each sending an event every that many milliseconds; streams are spread over
#               them (direct: in turn; nginx: round robin; gateway: by load)
#   --stream-s  seconds each stream lasts (its engine's answer length); a stream that ends is reopened, so N stay open
#   --open-rate streams opened a second while the N are first opened (default N / --stream-s: as many as end each
#               second once all run, so new streams arrive at one even pace, as on a grid in a steady state; a faster
#               ramp makes the streams end, and reopen, in bursts at the ramp's rate with idle seconds between)
#   --keep-alive  a stream that ends leaves its client connection to the next one on its slot, as an HTTP client's
#               pool or an ingress does (default: a new connection for every stream); probes and slow readers always
#               open their own
#   --replicas  gateway replicas (default: the fewest whose streams fit the open-file limit, one up to about half the
#               hard limit in streams); the load clients send their streams to the replicas in turn, as a load
#               balancer in front of them would, and memory, heap and CPU are summed over the replicas. Each replica
#               is sized as its pod would be, the machine's cores shared among them (-XX:ActiveProcessorCount, as a
#               container's CPU limit sets it)
#   --out       the results (default bench/streams/work/results.md; the raw lines beside it as .txt, the plot as .svg);
#               the table also goes to stdout
#
# Environment: GATEWAY_JAVA_OPTS adds JVM options to the gateway, after the fixed ones (the gateway's GC log for each N
# is written to work/gc-gateway-N.log). PROXY_TASKSET and LOAD_TASKSET prefix the proxy's command (nginx, the gateway)
# and the engines' and load clients' commands, to give the proxy cores of its own: PROXY_TASKSET="taskset -c 1"
# LOAD_TASKSET="taskset -c 0" (unset: every process may run on every core).
#
# Every server listens on 127.0.0.1 (ports 18200-18239). The open-file limit is raised to the hard limit; one process
# holds one descriptor per client connection and one per upstream connection, so a single gateway or nginx worker
# holds at most about half the hard limit in streams (`ulimit -Hn`): the gateway runs as several replicas and nginx
# with more workers than cores when N needs them, and the load client is split into processes of at most 9,000
# streams each. Installs nginx when missing (Debian) and builds the jars when missing or stale.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bin/lib/common.sh
. "$here/../../bin/lib/common.sh"
# shellcheck source=bench/side-by-side/tools.sh
. "$here/../side-by-side/tools.sh"
repo=$GRID_REPO
work=$here/work
counts="1000 5000 9000"
paths="direct nginx gateway"
gaps="500 750 1000 1000"
stream_s=30 slow=100 open_rate="" warmup_s=20 settle_s=15 window_s=30 probes=400 keep_alive=false replicas=""
out=$work/results.md
read -r -a load_on <<<"${LOAD_TASKSET:-}"
read -r -a proxy_on <<<"${PROXY_TASKSET:-}"
while [[ $# -gt 0 ]]; do
    case $1 in
        --n) counts=$2; shift ;;
        --paths) paths=$2; shift ;;
        --gaps-ms) gaps=$2; shift ;;
        --stream-s) stream_s=$2; shift ;;
        --slow) slow=$2; shift ;;
        --open-rate) open_rate=$2; shift ;;
        --warmup-s) warmup_s=$2; shift ;;
        --settle-s) settle_s=$2; shift ;;
        --window-s) window_s=$2; shift ;;
        --probes) probes=$2; shift ;;
        --keep-alive) keep_alive=true ;;
        --replicas) replicas=$2; shift ;;
        --out) out=$2; shift ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
        *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

readonly ENGINE_BASE=18200 FAST_PORT=18209 NGINX_PORT=18210 NGINX_FAST_PORT=18211 GATEWAY_PORT=18220
readonly CLIENT_MAX=9000
# Streams one proxy process holds within the open-file limit: two descriptors a stream, 512 kept for the rest.
per_process() { echo $((($(ulimit -Hn) - 512) / 2)); }
read -r -a gap_list <<<"$gaps"
log() { printf '%s streams: %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

require_jdk21 bench/streams/run.sh --install
install_missing nginx curl node
ulimit -n "$(ulimit -Hn)"
mkdir -p "$work"
build_if_stale bench/streams/run.sh app/target/grid-gateway.jar engine-sim/target/engine-simulator.jar \
    -- routing-core/src/main app/src/main engine-sim/src/main -- -DskipTests package
classes=$work/classes
src=$repo/app/src/jmh/java/grid/gateway/app/bench/streams
if [[ ! -f $classes/grid/gateway/app/bench/streams/StreamLoad.class ||
    -n "$(find "$src" -newer "$classes/grid/gateway/app/bench/streams/StreamLoad.class" -print -quit)" ]]; then
    "$jdk/bin/javac" -d "$classes" -cp "$repo/app/target/libs/*" "$src"/*.java
fi

pids=()
stop_all() {
    local pid
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    if [[ -f $work/nginx/nginx.pid ]]; then
        kill "$(cat "$work/nginx/nginx.pid")" 2>/dev/null || true
        rm -f "$work/nginx/nginx.pid"
    fi
    pids=()
}
trap stop_all EXIT

wait_port() { # port name
    local i
    for ((i = 0; i < 200; i++)); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
        sleep 0.1
    done
    echo "run.sh: $2 did not listen on port $1" >&2
    exit 1
}

start_engines() {
    local i=0 gap tps
    for gap in "${gap_list[@]}"; do
        tps=$(awk -v g="$gap" 'BEGIN { printf "%.4f", 1000 / g }')
        "${load_on[@]}" "$jdk/bin/java" -Xmx2g -jar "$repo/engine-sim/target/engine-simulator.jar" \
            --port $((ENGINE_BASE + i)) --name "e$i" --model bench-stream --slots 1000000 --decode-tps "$tps" --max-model-len 100000000 \
            --answer-tokens "$(awk -v s="$stream_s" -v g="$gap" 'BEGIN { printf "%d", s * 1000 / g }')" \
            >"$work/engine-$i.log" 2>&1 &
        pids+=($!)
        i=$((i + 1))
    done
    "${load_on[@]}" "$jdk/bin/java" -Xmx3g -jar "$repo/engine-sim/target/engine-simulator.jar" \
        --port "$FAST_PORT" --name fast --model bench-fast --slots 100000 --decode-tps 2000 --answer-tokens 10000 --max-model-len 100000000 >"$work/engine-fast.log" 2>&1 &
    pids+=($!)
    for ((i = 0; i < ${#gap_list[@]}; i++)); do wait_port $((ENGINE_BASE + i)) "engine e$i"; done
    wait_port "$FAST_PORT" "engine fast"
}

engine_targets() {
    local i list=""
    for ((i = 0; i < ${#gap_list[@]}; i++)); do list+="${list:+,}127.0.0.1:$((ENGINE_BASE + i))"; done
    echo "$list"
}

# nginx counts a stream twice (its client connection and its upstream one) against the worker that accepted it, and one
# worker may take most of them: each worker may hold every stream, up to the open-file limit.
worker_connections() { # n
    local want=$((2 * $1 + 1024)) limit
    limit=$(($(ulimit -Hn) - 256))
    echo $((want < limit ? want : limit))
}

# One worker per core, or more when N's descriptors would fill the workers (reuseport spreads the streams over them by
# a hash, so each is sized to hold a quarter more than its share).
worker_processes() { # n
    local need=$(((5 * $1 + 4 * $(per_process) - 1) / (4 * $(per_process))))
    if ((need <= $(nproc))); then echo auto; else echo "$need"; fi
}

start_nginx() { # n
    local dir=$work/nginx i
    mkdir -p "$dir/logs" "$dir/tmp"
    {
        cat <<EOF
worker_processes $(worker_processes "$1");
worker_rlimit_nofile $(ulimit -Hn);
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
events { worker_connections $(worker_connections "$1"); }
http {
  access_log $dir/logs/access.log combined buffer=64k flush=5s;
  client_body_temp_path $dir/tmp;
  upstream engines {
EOF
        for ((i = 0; i < ${#gap_list[@]}; i++)); do echo "    server 127.0.0.1:$((ENGINE_BASE + i));"; done
        cat <<EOF
    keepalive 1024;
  }
  upstream fast { server 127.0.0.1:$FAST_PORT; keepalive 128; }
  proxy_http_version 1.1;
  proxy_set_header Connection "";
  proxy_buffering off;
  proxy_cache off;
  proxy_read_timeout 300s;
  send_timeout 60s;
  server { listen 127.0.0.1:$NGINX_PORT backlog=4096 reuseport; location / { proxy_pass http://engines; } }
  server { listen 127.0.0.1:$NGINX_FAST_PORT backlog=4096 reuseport; location / { proxy_pass http://fast; } }
}
EOF
    } >"$dir/nginx.conf"
    "${proxy_on[@]}" "$(nginx_bin)" -q -c "$dir/nginx.conf" -p "$dir" -e "$dir/logs/error.log"
    wait_port "$NGINX_PORT" nginx
}

start_gateway() { # n
    local n=$1 count=${replicas:-$((($1 + $(per_process) - 1) / $(per_process)))} r cores=()
    gateway_pids=() gateway_ports=()
    # Replicas on one machine share its cores, as pods with CPU limits would: each JVM sizes its carrier threads,
    # collector threads and compilers for its share (at 10,000 streams two replicas that each assumed both cores
    # took 40-43 ms of CPU per 1,000 events, 35 ms with one core each).
    if ((count > 1)); then cores=("-XX:ActiveProcessorCount=$(($(nproc) / count > 0 ? $(nproc) / count : 1))"); fi
    for ((r = 0; r < count; r++)); do
        start_replica "$n" "$r" "${cores[@]}"
    done
}

start_replica() { # n replica [jvm options]: replica r listens on GATEWAY_PORT + 2r, its admin port next to it
    local n=$1 r=$2 config=$work/gateway-$2.yaml i port=$((GATEWAY_PORT + 2 * $2)) suffix
    shift 2
    suffix=$([[ $r -eq 0 ]] && echo "" || echo "-$r")
    {
        cat <<EOF
server: { port: $port, admin_port: $((port + 1)), host: 127.0.0.1, admin_host: 127.0.0.1 }
gateway: { site: bench }
sites:
  - name: bench
    clusters:
EOF
        for ((i = 0; i < ${#gap_list[@]}; i++)); do
            echo "      - { name: e$i, url: \"http://127.0.0.1:$((ENGINE_BASE + i))\", models: [bench-stream] }"
        done
        echo "      - { name: fast, url: \"http://127.0.0.1:$FAST_PORT\", models: [bench-fast] }"
    } >"$config"
    # The heap is fixed and touched at start, so RSS above idle is what the streams cost outside the heap, and the heap
    # they hold is read after a full GC: memory per stream is the sum (see the table's notes).
    # Word splitting is wanted: GATEWAY_JAVA_OPTS holds several options; they come after the fixed ones and win.
    local -a jvm=("$@")
    # shellcheck disable=SC2206
    jvm+=(${GATEWAY_JAVA_OPTS:-})
    "${proxy_on[@]}" "$jdk/bin/java" -XX:+UseG1GC -Xms2g -Xmx2g -XX:+AlwaysPreTouch -XX:+ExitOnOutOfMemoryError \
        "${jvm[@]}" \
        "-Xlog:gc:file=$work/gc-gateway-$n$suffix.log::filecount=0" -jar "$repo/app/target/grid-gateway.jar" \
        --config "$config" >"$work/gateway$suffix.log" 2>&1 &
    pids+=($!)
    gateway_pids+=($!)
    gateway_ports+=("$port")
    wait_port "$port" "gateway replica $r"
}

nginx_pids() { # the master and its workers
    local master
    master=$(cat "$work/nginx/nginx.pid")
    { echo "$master"; pgrep -P "$master"; } | paste -sd, -
}

# run_load PATH N: one measurement; prints the merged result line.
run_load() {
    local path=$1 n=$2 targets slow_target measured="" jvm=0 clients i share lines=()
    case $path in
        direct) targets=$(engine_targets) slow_target=127.0.0.1:$FAST_PORT ;;
        nginx) targets=127.0.0.1:$NGINX_PORT slow_target=127.0.0.1:$NGINX_FAST_PORT measured=$(nginx_pids) ;;
        gateway) targets=$(printf '127.0.0.1:%s\n' "${gateway_ports[@]}" | paste -sd, -)
            slow_target=127.0.0.1:$GATEWAY_PORT measured=$(printf '%s\n' "${gateway_pids[@]}" | paste -sd, -)
            jvm=$measured ;;
    esac
    clients=$(((n + CLIENT_MAX - 1) / CLIENT_MAX))
    share=$((n / clients))
    local client_pids=()
    rm -f "$work/measured" "$work/measured.idle"
    for ((i = 0; i < clients; i++)); do
        # The first client measures the proxy, times the probes and runs the slow readers; the others only load.
        "${load_on[@]}" "$jdk/bin/java" -Xmx3g -cp "$classes:$repo/app/target/libs/*" \
            grid.gateway.app.bench.streams.StreamLoad \
            --targets "$targets" --slow-target "$slow_target" --n "$share" --label "$path" \
            --open-rate "$(awk -v r="${open_rate:-$((n / stream_s))}" -v c="$clients" 'BEGIN { print r / c }')" \
            --warmup-s "$warmup_s" --warm-streams "$([[ $i -eq 0 ]] && echo 500 || echo 0)" --settle-s "$settle_s" --window-s "$window_s" \
            --max-tokens 1000000 --keep-alive "$keep_alive" \
            "$([[ $i -eq 0 ]] && echo --readings-done || echo --await-readings)" "$work/measured" \
            --probes "$([[ $i -eq 0 ]] && echo "$probes" || echo 0)" \
            --slow "$([[ $i -eq 0 ]] && echo "$slow" || echo 0)" \
            --pids "$([[ $i -eq 0 ]] && echo "$measured")" --jvm-pid "$([[ $i -eq 0 ]] && echo "$jvm" || echo 0)" \
            >"$work/client-$i.out" 2>"$work/client-$i.err" &
        client_pids+=($!)
    done
    for i in "${client_pids[@]}"; do wait "$i" || true; done
    for ((i = 0; i < clients; i++)); do lines+=("$(tail -n 1 "$work/client-$i.out")"); done
    printf '%s\n' "${lines[@]}" | awk -v n="$n" -v slow="$slow" -f "$here/merge.awk"
}

results=()
load_before=$(cut -d ' ' -f 1-3 /proc/loadavg)
for n in $counts; do
    for path in $paths; do
        log "N=$n $path"
        start_engines
        case $path in
            nginx) start_nginx "$n" ;;
            gateway) start_gateway "$n" ;;
        esac
        results+=("$n $path $(run_load "$path" "$n")")
        log "${results[-1]}"
        stop_all
    done
done
printf '%s\n' "${results[@]}" >"${out%.md}.txt"
printf '%s\n' "${results[@]}" | "$here/table.sh" "$load_before" | tee "$out"
node "$here/plot.mjs" "${out%.md}.txt" "${out%.md}.svg"
log "results: $out, ${out%.md}.txt (raw), ${out%.md}.svg (memory per stream and added first-event p99 against N)"

# shellcheck shell=bash
# Sourced (never run) by ab.sh, layers.sh and run.sh: the pieces of a same-machine measurement they share, so that
# every table is measured the same way.
#
#   . "$here/measure.sh"                 (after bin/lib/common.sh and tools.sh; jdk set by require_jdk21)
#   write_fixed_upstream DIR PORT...     writes DIR/nginx.conf (one worker, logs and temporary files under DIR):
#                                        nginx answering the fixed chat completion on every PORT of 127.0.0.1
#   nginx_conf_head DIR                  an nginx.conf's first lines, up to the open http block (run.sh's configs)
#   proc_ticks PID                       utime+stime of a process, in clock ticks (/proc)
#   heap_kb PID                          the heap in use of a JVM, in KiB (jstat)
#   alloc_kb GC_LOG FROM_LINE H0 H1      KiB a JVM allocated since line FROM_LINE of its -Xlog:gc log, given the heap
#                                        in use then (H0) and now (H1): young collections plus the heap's change
#   compile_pass_through REPO OUT        compiles PassThroughProxy (and RawUpstream) against REPO's app libs into
#                                        OUT when missing or older than the sources or the gateway jar

readonly FIXED_ANSWER='{"id":"chatcmpl-bench","object":"chat.completion","created":1764460800,"model":"bench-model","choices":[{"index":0,"message":{"role":"assistant","content":"Hello from the fixed upstream.","refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":256,"completion_tokens":8,"total_tokens":264,"prompt_tokens_details":{"cached_tokens":0}}}'

write_fixed_upstream() {
    local dir=$1
    shift
    mkdir -p "$dir/logs" "$dir/tmp"
    fixed_upstream_conf "$dir" "$@" >"$dir/nginx.conf"
}

# The first lines of an nginx.conf in $1 (made beforehand with logs/ and tmp/): one worker, logs and temporary files
# under $1, up to the open http block.
nginx_conf_head() {
    local dir=$1
    cat <<EOF
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $dir/tmp;
EOF
}

fixed_upstream_conf() {
    local dir=$1 port
    shift
    nginx_conf_head "$dir"
    cat <<EOF
  client_max_body_size 64m;
  client_body_buffer_size 1m;
  keepalive_requests 1000000;
  default_type application/json;
  server {
EOF
    for port in "$@"; do echo "    listen 127.0.0.1:$port;"; done
    cat <<EOF
    location = /v1/chat/completions { return 200 '$FIXED_ANSWER'; }
    location = /metrics { default_type text/plain; return 200 'vllm:num_requests_waiting 0\n'; }
  }
}
EOF
}

proc_ticks() {
    local s f
    s=$(cat "/proc/$1/stat")
    s=${s##*) } # the fields after the command name, starting at field 3
    read -r -a f <<<"$s"
    echo $((f[11] + f[12]))
}

heap_kb() { "$jdk/bin/jstat" -gc "$1" | tail -n 1 | awk '{ printf "%.0f", $3 + $4 + $6 + $8 }'; }

alloc_kb() {
    local log=$1 from=$2 h0=$3 h1=$4
    tail -n +"$((from + 1))" "$log" | { grep 'Pause Young' || true; } |
        sed -n 's/.* \([0-9]*\)M->\([0-9]*\)M.*/\1 \2/p' |
        awk -v u0="$h0" -v u1="$h1" 'NR == 1 { s = $1 * 1024 - u0 } NR > 1 { s += ($1 - prev) * 1024 } { prev = $2 }
            END { if (NR == 0) print u1 - u0; else print s + u1 - prev * 1024 }'
}

compile_pass_through() {
    local repo=$1 out=$2 dir=$1/app/src/jmh/java/grid/gateway/app/bench
    local class=$out/grid/gateway/app/bench/PassThroughProxy.class
    if [[ ! -f "$class" || "$dir/PassThroughProxy.java" -nt "$class" || "$dir/RawUpstream.java" -nt "$class" ||
        "$repo/app/target/grid-gateway.jar" -nt "$class" ]]; then
        "$jdk/bin/javac" -d "$out" -cp "$repo/app/target/libs/*" "$dir/PassThroughProxy.java" "$dir/RawUpstream.java"
    fi
}

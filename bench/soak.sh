#!/usr/bin/env bash
# The soak (docs/failure-behaviour.md "Soak"): the packaged gateway in front of three simulated engines at two
# sites, all on 127.0.0.1, mixed traffic with injected faults for MINUTES (default 10), then checks that every request
# got exactly one answer and that heap after GC, threads, file descriptors and upstream connections are back at
# their baseline, and that SIGTERM drains the streams in flight. Exits 0 when every check passed, 1 otherwise.
#
#   bench/soak.sh [MINUTES] [extra SoakRun options: --clients N --seed N]
#
# Stops by itself; every process it starts is stopped on exit (also on Ctrl-C). Builds what it needs (Maven and a
# JDK 21+ with jcmd: JAVA_HOME if 21+, else the newest under /usr/lib/jvm; needs Linux /proc).
set -euo pipefail
# shellcheck source=bin/lib/common.sh
. "$(dirname "$0")/../bin/lib/common.sh"
cd "$GRID_REPO"

minutes=${1:-10}
shift || true
if ! [[ "$minutes" =~ ^[0-9]+$ ]] || [[ "$minutes" -lt 1 || "$minutes" -gt 240 ]]; then
    echo "soak: MINUTES must be a whole number from 1 to 240" >&2
    exit 2
fi

require_jdk21 soak jcmd
gateway_jar=app/target/grid-gateway.jar
conformance_jar=conformance/target/conformance.jar
build_if_stale soak "$gateway_jar" "$conformance_jar" -- routing-core/src engine-sim/src app/src conformance/src \
    -- -DskipTests package

# SoakRun stops the processes it started; this trap covers a soak that is itself killed.
"$jdk/bin/java" -cp "$conformance_jar:conformance/target/libs/*" grid.gateway.conformance.soak.SoakRun \
    --seconds $((minutes * 60)) --jar "$gateway_jar" "$@" &
soak=$!
trap 'kill -TERM "$soak" 2>/dev/null || true; wait "$soak" 2>/dev/null || true' INT TERM
wait "$soak"

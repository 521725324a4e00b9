# shellcheck shell=bash
# Sourced (never run) by run.sh and ab.sh: the one place that installs the side-by-side's tools when they are missing
# (Debian's apt-get, as root or through sudo), so both scripts run on a fresh host.
#
#   . "$here/tools.sh"
#   install_missing nginx h2load node curl      the tools a script needs; each is installed only when missing
#   "$(nginx_bin)" ...                            nginx, also where /usr/sbin is not on PATH

sudo_if_needed() {
    if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

# Prints the Debian package that provides the command $1.
package_of() {
    case $1 in
        h2load) echo nghttp2-client ;;
        node) echo nodejs ;;
        mvn) echo maven ;;
        *) echo "$1" ;;
    esac
}

# install_missing TOOL...: installs, with one apt-get run, the package of every tool that is not there yet.
install_missing() {
    local -a packages=()
    local tool
    for tool in "$@"; do
        if [[ $tool == nginx ]]; then
            command -v nginx >/dev/null 2>&1 || [[ -x /usr/sbin/nginx ]] || packages+=(nginx)
        else
            command -v "$tool" >/dev/null 2>&1 || packages+=("$(package_of "$tool")")
        fi
    done
    if [[ ${#packages[@]} -gt 0 ]]; then
        printf '%s %s: installing %s with apt-get\n' "$(date -u +%H:%M:%S)" "$(basename "$0")" "${packages[*]}" >&2
        sudo_if_needed apt-get update -qq
        sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}"
    fi
}

nginx_bin() { command -v nginx 2>/dev/null || echo /usr/sbin/nginx; }

#!/bin/sh
# kubemaint-agent: the reporter that runs on every node (DaemonSet). It checks whether the host
# needs a reboot and, only when that answer changes, labels ITS OWN node:
#   label       kubemaint.io/reboot-required=true
#   annotations kubemaint.io/reboot-required-since (ISO time), kubemaint.io/reboot-required-packages,
#               kubemaint.io/reboot-required-reporter=agent
# and removes them again (JSON merge patch with nulls) when the need is gone. The reporter annotation
# tells the control plane the mark is ours to clear: after a reboot it waits for this script's first
# check to find the file gone, which is the proof that the reboot did what the host asked for.
#
# Why a shell script: it runs once per node, so its footprint is multiplied by the fleet. sh + curl
# peak at a few MB; a Node.js process would be ~40 MB per node (docs/adr/0003).
#
# The check, in order of preference:
#   SENTINEL_COMMAND set: run it on the HOST through nsenter (exit 0 = reboot needed, 1 = not
#     needed, anything else = unknown, nothing is written). This needs hostPID and a privileged
#     container, so the default DaemonSet does not use it.
#   otherwise: does $HOST_ROOT/var/run/reboot-required exist (Debian/Ubuntu's unattended-upgrades
#     and needrestart create it)? Its .pkgs companion lists the packages that asked for it.
#
# Settings from kubemaint.yaml (`agent:`, ADR 0022): the control plane writes them into the ConfigMap
# kubemaint-agent, which the DaemonSet mounts at AGENT_CONFIG_DIR, one file per key: sentinel-file
# (a host path), period-seconds, jitter-seconds. They are read again before every check, so a new
# config reaches a running agent. A variable set in the environment (the DaemonSet's `env:`) wins
# over the file of the same setting; a file value that is not valid is logged and ignored. A
# sentinel command never comes from there: it runs as root on the host, so only the DaemonSet,
# which the installer writes, can set it.
#
# Environment (every path can be overridden, which is how the tests run it):
#   NODE_NAME           this node (downward API spec.nodeName)                      required
#   HOST_ROOT           where the host's / is mounted                                  /host
#   SENTINEL_FILE       reboot-required file        $HOST_ROOT/var/run/reboot-required
#   SENTINEL_PKGS_FILE  its package list                               $SENTINEL_FILE.pkgs
#   SENTINEL_COMMAND    host command instead of the file check                          (unset)
#   NSENTER             how the command enters the host   nsenter --target 1 --mount --uts --ipc --net --pid --
#   PERIOD_SECONDS      time between checks                                             300
#   JITTER_SECONDS      each wait is PERIOD +/- up to this, so a fleet does not
#                       patch in lockstep                                  PERIOD_SECONDS/5
#   RESYNC_EVERY        re-read the node every N checks, in case a person changed it     12
#   SA_DIR              service-account mount    /var/run/secrets/kubernetes.io/serviceaccount
#   TOKEN_FILE, CA_FILE $SA_DIR/token (re-read each time: it rotates), $SA_DIR/ca.crt
#   API_SERVER          https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT
#   MAX_PACKAGES_CHARS  cap on the packages annotation                                1024
#   API_CONNECT_TIMEOUT_SECONDS  TCP and TLS handshake of one API call                      5
#   API_TIMEOUT_SECONDS          one API call, whole                                        15
#                       (raise both on slow nodes: an emulated VM took 10 s for a handshake)
#   AGENT_ITERATIONS    stop after N checks (tests); 0 runs forever                       0
#   CURL                the curl binary                                                  curl
#   AGENT_CONFIG_DIR    the mounted kubemaint-agent ConfigMap            /etc/kubemaint-agent
#
# It also reports the kubelet's graceful node shutdown setting (ADR 0049), on start and at every
# re-read of the node, as annotations on its node, written only when they change:
#   kubemaint.io/shutdown-grace-period                (the kubelet's shutdownGracePeriod: 20s, 0s)
#   kubemaint.io/shutdown-grace-period-critical-pods  (shutdownGracePeriodCriticalPods)
#   kubemaint.io/shutdown-grace-period-source         configz, or file
#   kubemaint.io/shutdown-grace-period-by-pod-priority  (shutdownGracePeriodByPodPriority, when the
#                       kubelet uses it: priority:period pairs, lowest first, 0:20s,2000000000:10s)
# With shutdownGracePeriodByPodPriority (which upstream allows only with the other two at 0) the
# kubelet's inhibitor delay is the sum of the list's periods (its nodeshutdown manager's
# periodRequested): that sum is reported as the period, and as the critical pods' share the period of
# the group a system-cluster-critical pod (priority 2000000000) falls in, as the kubelet groups pods
# (the highest entry at or below the pod's priority, else the lowest entry).
# configz: GET /configz from the kubelet on this node (its address from the downward API, its port
# from the Node's status) with the service-account token; the kubelet asks the API server
# (TokenReview, SubjectAccessReview) whether the token may `get nodes/configz` (kubelet 1.33+,
# KubeletFineGrainedAuthz; older kubelets ask for nodes/proxy, which this agent is not granted).
# file: when configz does not answer, the host's kubelet config file, if mounted. Neither: nothing
# is written (the control plane then says the setting is unknown).
#   HOST_IP             this node's address (downward API status.hostIP)               127.0.0.1
#   KUBELET_URL         the kubelet     https://$HOST_IP:<the Node's kubeletEndpoint port, or 10250>
#                       (`off`: do not ask the kubelet)
#   KUBELET_CA_FILE     verify the kubelet's serving certificate with this CA. Unset: not verified,
#                       since kubelets serve a self-signed certificate by default; the call stays on
#                       this node (a pod to its own node's address)                       (unset)
#   KUBELET_CONFIG_FILE the host's kubelet config     $HOST_ROOT/var/lib/kubelet/config.yaml
#
# It never exits on API errors: it logs, keeps what it knew, and tries again next period.
set -u

log() { # level message [key=value ...]
  printf '%s level=%s msg="%s"' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$1" "$2"
  shift 2
  [ $# -gt 0 ] && printf ' %s' "$@"
  printf '\n'
}

NODE_NAME=${NODE_NAME:-}
# Which settings the environment gives (they win over kubemaint.yaml's), before defaults fill in.
env_sentinel=${SENTINEL_FILE+set}
env_pkgs=${SENTINEL_PKGS_FILE+set}
env_period=${PERIOD_SECONDS+set}
env_jitter=${JITTER_SECONDS+set}
AGENT_CONFIG_DIR=${AGENT_CONFIG_DIR:-/etc/kubemaint-agent}
HOST_ROOT=${HOST_ROOT:-/host}
SENTINEL_FILE=${SENTINEL_FILE:-$HOST_ROOT/var/run/reboot-required}
SENTINEL_PKGS_FILE=${SENTINEL_PKGS_FILE:-$SENTINEL_FILE.pkgs}
SENTINEL_COMMAND=${SENTINEL_COMMAND:-}
NSENTER=${NSENTER-nsenter --target 1 --mount --uts --ipc --net --pid --}
PERIOD_SECONDS=${PERIOD_SECONDS:-300}
JITTER_SECONDS=${JITTER_SECONDS:-$((PERIOD_SECONDS / 5))}
RESYNC_EVERY=${RESYNC_EVERY:-12}
SA_DIR=${SA_DIR:-/var/run/secrets/kubernetes.io/serviceaccount}
TOKEN_FILE=${TOKEN_FILE:-$SA_DIR/token}
CA_FILE=${CA_FILE:-$SA_DIR/ca.crt}
API_SERVER=${API_SERVER:-https://${KUBERNETES_SERVICE_HOST:-kubernetes.default.svc}:${KUBERNETES_SERVICE_PORT:-443}}
MAX_PACKAGES_CHARS=${MAX_PACKAGES_CHARS:-1024}
API_CONNECT_TIMEOUT_SECONDS=${API_CONNECT_TIMEOUT_SECONDS:-5}
API_TIMEOUT_SECONDS=${API_TIMEOUT_SECONDS:-15}
AGENT_ITERATIONS=${AGENT_ITERATIONS:-0}
CURL=${CURL:-curl}
HOST_IP=${HOST_IP:-127.0.0.1}
KUBELET_URL=${KUBELET_URL:-}
KUBELET_CA_FILE=${KUBELET_CA_FILE:-}
KUBELET_CONFIG_FILE=${KUBELET_CONFIG_FILE:-$HOST_ROOT/var/lib/kubelet/config.yaml}

KEY_LABEL='kubemaint.io/reboot-required'
KEY_SINCE='kubemaint.io/reboot-required-since'
KEY_PKGS='kubemaint.io/reboot-required-packages'
KEY_REPORTER='kubemaint.io/reboot-required-reporter'
KEY_GRACE='kubemaint.io/shutdown-grace-period'
KEY_GRACE_CRITICAL='kubemaint.io/shutdown-grace-period-critical-pods'
KEY_GRACE_SOURCE='kubemaint.io/shutdown-grace-period-source'
KEY_GRACE_PRIORITY='kubemaint.io/shutdown-grace-period-by-pod-priority'

is_uint() { case $1 in '' | *[!0-9]*) return 1 ;; *) return 0 ;; esac; }

# A node name is a DNS subdomain; checking it also keeps it safe inside a URL and JSON.
case $NODE_NAME in
  '' | *[!a-z0-9.-]*)
    log error "NODE_NAME must be this node's name (set it from the downward API: spec.nodeName)" "node=\"$NODE_NAME\""
    exit 2
    ;;
esac
for v in PERIOD_SECONDS JITTER_SECONDS RESYNC_EVERY MAX_PACKAGES_CHARS AGENT_ITERATIONS; do
  eval "val=\$$v"
  # shellcheck disable=SC2154 # val is set by the eval above
  if ! is_uint "$val"; then
    log error "$v must be a whole number of seconds or a count" "$v=\"$val\""
    exit 2
  fi
done
# curl takes 0 as "no limit": a call that could hang for ever is refused too.
for v in API_CONNECT_TIMEOUT_SECONDS API_TIMEOUT_SECONDS; do
  eval "val=\$$v"
  if ! is_uint "$val" || [ "$val" -eq 0 ]; then
    log error "$v must be a whole number of seconds, at least 1" "$v=\"$val\""
    exit 2
  fi
done
[ "$JITTER_SECONDS" -gt "$PERIOD_SECONDS" ] && JITTER_SECONDS=$PERIOD_SECONDS

# --- kubemaint.yaml's settings ---------------------------------------------------------------
# setting NAME: the first line of $AGENT_CONFIG_DIR/NAME, or nothing when there is no such file.
setting() {
  [ -r "$AGENT_CONFIG_DIR/$1" ] || return 0
  head -n 1 "$AGENT_CONFIG_DIR/$1" 2>/dev/null | tr -d '\r'
}

# Applies the files to what the environment left open; says what changed, once per change. The
# control plane validated these values, but the file is trusted no further than its syntax.
read_settings() {
  was="$SENTINEL_FILE $PERIOD_SECONDS $JITTER_SECONDS"
  if [ -z "$env_sentinel" ]; then
    v=$(setting sentinel-file)
    case $v in
      '') SENTINEL_FILE=$HOST_ROOT/var/run/reboot-required ;;
      *..* | *[!A-Za-z0-9._/-]* | [!/]*) log warn "ignoring sentinel-file from kubemaint.yaml: not an absolute plain path" "value=\"$(printf '%s' "$v" | tr -cd 'A-Za-z0-9._/ -' | cut -c1-100)\"" ;;
      *) SENTINEL_FILE=$HOST_ROOT$v ;;
    esac
    [ -z "$env_pkgs" ] && SENTINEL_PKGS_FILE=$SENTINEL_FILE.pkgs
  fi
  if [ -z "$env_period" ]; then
    v=$(setting period-seconds)
    if [ -z "$v" ]; then
      PERIOD_SECONDS=300
    elif is_uint "$v" && [ "$v" -ge 10 ] && [ "$v" -le 86400 ]; then
      PERIOD_SECONDS=$v
    else
      log warn "ignoring period-seconds from kubemaint.yaml: not 10 to 86400" "value=\"$(printf '%s' "$v" | tr -cd '0-9' | cut -c1-12)\""
    fi
  fi
  if [ -z "$env_jitter" ]; then
    v=$(setting jitter-seconds)
    if [ -z "$v" ]; then
      JITTER_SECONDS=$((PERIOD_SECONDS / 5))
    elif is_uint "$v" && [ "$v" -le "$PERIOD_SECONDS" ]; then
      JITTER_SECONDS=$v
    else
      log warn "ignoring jitter-seconds from kubemaint.yaml: not 0 to the period" "value=\"$(printf '%s' "$v" | tr -cd '0-9' | cut -c1-12)\""
    fi
  fi
  [ "$JITTER_SECONDS" -gt "$PERIOD_SECONDS" ] && JITTER_SECONDS=$PERIOD_SECONDS
  if [ "$was" != "$SENTINEL_FILE $PERIOD_SECONDS $JITTER_SECONDS" ] && [ -n "${started:-}" ]; then
    log info "settings changed" "sentinel=$SENTINEL_FILE" "period=${PERIOD_SECONDS}s" "jitter=${JITTER_SECONDS}s"
  fi
  return 0
}
read_settings

# --- the check -------------------------------------------------------------------------------
# Sets `need` to true, false or unknown, `pkgs` to the package list and `since` to an ISO time.
check_host() {
  pkgs=''
  since=''
  if [ -n "$SENTINEL_COMMAND" ]; then
    # shellcheck disable=SC2086 # NSENTER is a command prefix and must split into words
    $NSENTER /bin/sh -c "$SENTINEL_COMMAND" >/dev/null 2>&1
    rc=$?
    case $rc in
      0) need=true ;;
      1) need=false ;;
      *)
        need=unknown
        log warn "sentinel command failed; keeping the last answer" "exit=$rc"
        ;;
    esac
    since=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    return
  fi
  if [ -e "$SENTINEL_FILE" ]; then
    need=true
    # The file's age is when the need arose, and it survives an agent restart.
    since=$(date -u -r "$SENTINEL_FILE" +%Y-%m-%dT%H:%M:%SZ 2>/dev/null || date -u +%Y-%m-%dT%H:%M:%SZ)
    [ -r "$SENTINEL_PKGS_FILE" ] && pkgs=$(read_packages "$SENTINEL_PKGS_FILE")
  else
    need=false
  fi
}

# Unique package names, comma-joined, only [A-Za-z0-9.+:_-] (the host's file is not trusted to be
# JSON-safe), cut at a name boundary below MAX_PACKAGES_CHARS with a ",..." marker.
read_packages() {
  tr -c 'A-Za-z0-9.+:_\n-' '\n' <"$1" | grep -v '^$' | awk '!seen[$0]++' |
    awk -v max="$MAX_PACKAGES_CHARS" '
      { item = (out == "" ? $0 : "," $0)
        if (length(out) + length(item) > max - 4) { cut = 1; exit }
        out = out item }
      END { printf "%s%s", out, (cut ? ",..." : "") }'
}

# --- the API ---------------------------------------------------------------------------------
# api METHOD PATH [BODY]: sets `status` (HTTP code, 000 when unreachable) and `body`.
# The token goes to curl on stdin (-H @-), never on the command line where ps could show it.
api() {
  if ! token=$(cat "$TOKEN_FILE" 2>/dev/null) || [ -z "$token" ]; then
    status=000
    body="cannot read the service-account token at $TOKEN_FILE"
    return
  fi
  if [ $# -ge 3 ]; then
    out=$(printf 'Authorization: Bearer %s\nContent-Type: application/merge-patch+json\n' "$token" |
      $CURL -sS --cacert "$CA_FILE" --connect-timeout "$API_CONNECT_TIMEOUT_SECONDS" --max-time "$API_TIMEOUT_SECONDS" -X "$1" -H @- \
        -H 'Accept: application/json' --data-binary "$3" -w '%{http_code}' "$API_SERVER$2" 2>&1)
  else
    out=$(printf 'Authorization: Bearer %s\n' "$token" |
      $CURL -sS --cacert "$CA_FILE" --connect-timeout "$API_CONNECT_TIMEOUT_SECONDS" --max-time "$API_TIMEOUT_SECONDS" -X "$1" -H @- \
        -H 'Accept: application/json' -w '%{http_code}' "$API_SERVER$2" 2>&1)
  fi
  status=${out#"${out%???}"}
  body=${out%???}
  is_uint "$status" || status=000
}

# What the node says now, as a state string: "true|<packages>", "false", or "stale" (our
# annotations without the label: left behind, to be cleared). `node_since` keeps the recorded time.
read_node() {
  api GET "/api/v1/nodes/$NODE_NAME"
  if [ "$status" != 200 ]; then
    log warn "cannot read this node; will retry" "status=$status" "detail=\"$(printf '%s' "$body" | tr -d '"\n' | cut -c1-200)\""
    return 1
  fi
  node_since=$(json_value "$KEY_SINCE")
  grace_known="$(json_value "$KEY_GRACE")|$(json_value "$KEY_GRACE_CRITICAL")|$(json_value "$KEY_GRACE_SOURCE")|$(json_value "$KEY_GRACE_PRIORITY")"
  # kube-apiserver pretty-prints JSON for curl, so the port is on a line of its own: join the lines.
  kubelet_port=$(printf '%s\n' "$body" | tr -d '\n' | sed -n 's|.*"kubeletEndpoint": *{ *"Port": *\([0-9][0-9]*\).*|\1|p' | head -n 1)
  if [ "$(json_value "$KEY_LABEL")" = true ]; then
    known="true|$(json_value "$KEY_PKGS")"
  elif [ -n "$node_since" ] || printf '%s' "$body" | grep -q "\"$KEY_PKGS\":"; then
    known=stale
  else
    known=false
  fi
  return 0
}

# The string value of "key" in the last response. Our keys only ever hold values without quotes or
# backslashes, and a key quoted inside another value is preceded by a backslash, so it cannot match.
json_value() {
  printf '%s\n' "$body" | sed -n "s|.*\"$1\": *\"\([^\"]*\)\".*|\1|p" | head -n 1
}

patch_node() {
  api PATCH "/api/v1/nodes/$NODE_NAME" "$1"
  case $status in
    2??) return 0 ;;
    *)
      log warn "patching this node failed; will retry next period" "status=$status" "detail=\"$(printf '%s' "$body" | tr -d '"\n' | cut -c1-200)\""
      return 1
      ;;
  esac
}

# --- the kubelet's graceful shutdown ----------------------------------------------------------
# A duration as the kubelet prints it (Go: 20s, 1m30s, 0s), or nothing: the host and the kubelet
# are trusted no further than that, as the value goes into JSON.
duration() {
  v=$(printf '%s' "$1" | sed 's/#.*//' | tr -d ' "'"'"'\r' | cut -c1-32)
  case $v in
    0) printf '0s' ;;
    '' | *[!0-9.hmsun]* | [!0-9.]*) ;;
    *) printf '%s' "$v" ;;
  esac
}

# The value of "key" in a flat JSON text, any type, up to the next comma or brace.
json_field() {
  printf '%s\n' "$2" | sed -n "s|.*\"$1\": *\"\{0,1\}\([^\",}]*\).*|\1|p" | head -n 1
}

# by_priority TEXT: a shutdownGracePeriodByPodPriority list (configz's JSON, or the file's YAML in
# block or flow style, each item opened by `{` or `- `) as "total critical list": the sum of the
# periods, the period of the group a priority-2000000000 pod falls in, and "priority:period" pairs
# sorted by priority as the kubelet sorts them. A period an item leaves out is 0 (Go's zero value);
# an item without a plain integer priority is skipped. Nothing for an empty list. awk sorts: the
# agent image has no sort.
by_priority() {
  printf '%s\n' "$1" | sed 's/#.*//; s/^[[:space:]]*-/{/' | tr '\n' ' ' | tr '{' '\n' | awk '
    function dur(s) {
      if (s >= 3600) return int(s / 3600) "h" int(s % 3600 / 60) "m" s % 60 "s"
      if (s >= 60) return int(s / 60) "m" s % 60 "s"
      return s "s"
    }
    match($0, /priority"?[ \t]*:[ \t]*-?[0-9][0-9]*/) {
      p = substr($0, RSTART, RLENGTH); sub(/.*:[ \t]*/, "", p)
      s = 0
      if (match($0, /shutdownGracePeriodSeconds"?[ \t]*:[ \t]*[0-9][0-9]*/)) {
        s = substr($0, RSTART, RLENGTH); sub(/.*:[ \t]*/, "", s)
      }
      # The kubelet takes an int32 priority; no period has more than 9 digits.
      if (length(p) > 11 || p + 0 > 2147483647 || p + 0 < -2147483648 || length(s) > 9) next
      n++; pr[n] = p + 0; se[n] = s + 0
    }
    END {
      if (n == 0) exit
      for (i = 2; i <= n; i++) {
        p = pr[i]; s = se[i]
        for (j = i - 1; j >= 1 && pr[j] > p; j--) { pr[j + 1] = pr[j]; se[j + 1] = se[j] }
        pr[j + 1] = p; se[j + 1] = s
      }
      critical = se[1]
      for (i = 1; i <= n; i++) {
        total += se[i]
        if (pr[i] <= 2000000000) critical = se[i]
        list = list (i > 1 ? "," : "") pr[i] ":" dur(se[i])
      }
      print dur(total), dur(critical), list
    }'
}

# Sets `grace` from by_priority's answer "total critical list" and the source.
grace_by_priority() { # answer source
  # shellcheck disable=SC2086 # the answer splits into its three words (digits and :,hms- only)
  set -- $1 "$2"
  grace="$1|$2|$4|$3"
}

# Sets `grace` to "period|critical|source|priorities" (priorities empty unless the kubelet uses
# shutdownGracePeriodByPodPriority), or to nothing when neither source answers.
read_grace() {
  grace=''
  if [ "$KUBELET_URL" != off ]; then
    url=${KUBELET_URL:-https://$HOST_IP:${kubelet_port:-10250}}
    if ! token=$(cat "$TOKEN_FILE" 2>/dev/null) || [ -z "$token" ]; then
      out="000cannot read the service-account token at $TOKEN_FILE"
    elif [ -n "$KUBELET_CA_FILE" ]; then
      out=$(printf 'Authorization: Bearer %s\n' "$token" |
        $CURL -sS --cacert "$KUBELET_CA_FILE" --connect-timeout "$API_CONNECT_TIMEOUT_SECONDS" --max-time "$API_TIMEOUT_SECONDS" \
          -H @- -w '%{http_code}' "$url/configz" 2>&1)
    else
      out=$(printf 'Authorization: Bearer %s\n' "$token" |
        $CURL -sS --insecure --connect-timeout "$API_CONNECT_TIMEOUT_SECONDS" --max-time "$API_TIMEOUT_SECONDS" \
          -H @- -w '%{http_code}' "$url/configz" 2>&1)
    fi
    code=${out#"${out%???}"}
    got=${out%???}
    if [ "$code" = 200 ] && printf '%s' "$got" | grep -q '"kubeletconfig"'; then
      # A non-empty list is what the kubelet uses (it migrates the two durations only without one).
      list=$(printf '%s' "$got" | tr -d '\n' | sed -n 's|.*"shutdownGracePeriodByPodPriority": *\[\([^]]*\)\].*|\1|p')
      answer=$(by_priority "$list")
      if [ -n "$answer" ]; then
        grace_by_priority "$answer" configz
        return 0
      fi
      # The kubelet prints a zero duration as "0s"; a key it leaves out is its default, 0s, too.
      period=$(duration "$(json_field shutdownGracePeriod "$got")")
      critical=$(duration "$(json_field shutdownGracePeriodCriticalPods "$got")")
      grace="${period:-0s}|${critical:-0s}|configz|"
      return 0
    fi
    log warn "cannot read the kubelet's configz; trying the host's kubelet config file" "url=$url/configz" \
      "status=$code" "detail=\"$(printf '%s' "$got" | tr -d '"\n' | cut -c1-200)\""
  fi
  # The DaemonSet mounts the file with hostPath type FileOrCreate, so a node whose kubelet reads its
  # config elsewhere has an empty file here: only a KubeletConfiguration counts (the kubelet needs
  # its kind too).
  if [ -f "$KUBELET_CONFIG_FILE" ] && [ -r "$KUBELET_CONFIG_FILE" ] &&
    grep -q '^kind: *["'"'"']\{0,1\}KubeletConfiguration' "$KUBELET_CONFIG_FILE"; then
    list=$(sed 's/#.*//' "$KUBELET_CONFIG_FILE" | awk '
      on && /^[^ \t-]/ { exit }
      on { print; next }
      /^shutdownGracePeriodByPodPriority[ \t]*:/ { on = 1; sub(/^[^:]*:/, ""); print }')
    answer=$(by_priority "$list")
    if [ -n "$answer" ]; then
      grace_by_priority "$answer" file
      return 0
    fi
    # The kubelet's default for a key the file leaves out is 0s.
    period=$(duration "$(sed -n 's|^shutdownGracePeriod: *||p' "$KUBELET_CONFIG_FILE" | head -n 1)")
    critical=$(duration "$(sed -n 's|^shutdownGracePeriodCriticalPods: *||p' "$KUBELET_CONFIG_FILE" | head -n 1)")
    grace="${period:-0s}|${critical:-0s}|file|"
    return 0
  fi
  log warn "shutdown grace period unknown: no configz and no kubelet config file" "file=$KUBELET_CONFIG_FILE"
}

# Writes the setting when it differs from what the node says (read_node's grace_known).
report_grace() {
  read_grace
  [ -n "$grace" ] && [ "$grace" != "$grace_known" ] || return 0
  period=${grace%%|*}
  rest=${grace#*|}
  critical=${rest%%|*}
  rest=${rest#*|}
  source=${rest%%|*}
  priorities=${rest#*|}
  # null removes the list when the kubelet no longer uses one (a no-op where there was none).
  priorities_json=null
  [ -n "$priorities" ] && priorities_json="\"$priorities\""
  if patch_node '{"metadata":{"annotations":{"'$KEY_GRACE'":"'$period'","'$KEY_GRACE_CRITICAL'":"'$critical'","'$KEY_GRACE_SOURCE'":"'$source'","'$KEY_GRACE_PRIORITY'":'$priorities_json'}}}'; then
    log info "shutdown grace period reported" "node=$NODE_NAME" "period=$period" "critical=$critical" "source=$source" \
      "by-pod-priority=\"$priorities\""
    grace_known=$grace
  fi
}

# --- the loop --------------------------------------------------------------------------------
sleep_jittered() {
  wait_s=$PERIOD_SECONDS
  if [ "$JITTER_SECONDS" -gt 0 ]; then
    r=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
    wait_s=$((PERIOD_SECONDS - JITTER_SECONDS + r % (2 * JITTER_SECONDS + 1)))
  fi
  [ "$wait_s" -gt 0 ] || return 0
  # In the background and waited for, so SIGTERM is handled at once rather than after the sleep.
  sleep "$wait_s" &
  wait $!
}

trap 'log info "stopping"; exit 0' TERM INT

log info "starting" "node=$NODE_NAME" "period=${PERIOD_SECONDS}s" "jitter=${JITTER_SECONDS}s" \
  "check=$([ -n "$SENTINEL_COMMAND" ] && echo command || echo "file:$SENTINEL_FILE")"
known=''
node_since=''
iteration=0
since_sync=0
started=1
while :; do
  iteration=$((iteration + 1))
  [ "$iteration" -gt 1 ] && read_settings
  # Compare with the node itself on start, after a failure and every RESYNC_EVERY checks;
  # otherwise with what we wrote last (no read, no write while nothing changes).
  if [ -z "$known" ] || [ "$since_sync" -ge "$RESYNC_EVERY" ]; then
    if read_node; then
      since_sync=0
      report_grace
    else
      known=''
    fi
  fi
  since_sync=$((since_sync + 1))
  if [ -n "$known" ]; then
    check_host
    case $need in
      true) want="true|$pkgs" ;;
      false) want=false ;;
      *) want=$known ;;
    esac
    if [ "$want" != "$known" ]; then
      pkgs_json=null
      [ -n "$pkgs" ] && pkgs_json="\"$pkgs\""
      if [ "$need" = true ]; then
        case $known in
          true\|*) since_json="\"${node_since:-$since}\"" ;; # still needed: keep the first time
          *) since_json="\"$since\"" ;;
        esac
        patch='{"metadata":{"labels":{"'$KEY_LABEL'":"true"},"annotations":{"'$KEY_SINCE'":'$since_json',"'$KEY_PKGS'":'$pkgs_json',"'$KEY_REPORTER'":"agent"}}}'
        action=marked
      else
        patch='{"metadata":{"labels":{"'$KEY_LABEL'":null},"annotations":{"'$KEY_SINCE'":null,"'$KEY_PKGS'":null,"'$KEY_REPORTER'":null}}}'
        action=cleared
      fi
      if patch_node "$patch"; then
        log info "reboot-required $action" "node=$NODE_NAME" "packages=\"$pkgs\""
        known=$want
        [ "$need" = true ] && node_since=${since_json#\"} && node_since=${node_since%\"}
      else
        known='' # read the node again before the next attempt
      fi
    fi
  fi
  if [ "$AGENT_ITERATIONS" -gt 0 ] && [ "$iteration" -ge "$AGENT_ITERATIONS" ]; then
    exit 0
  fi
  sleep_jittered
done

#!/usr/bin/env bash
# A highly available kplane on one machine, each component a process of its own on a distinct
# port: 3 etcd members, 3 API servers, 2 controller managers, 1 scheduler and the simulated
# kubelet. See docs/high-availability.md.
#
#   scripts/ha-local.sh start [--dir DIR] [--storage URL] [--apiservers N] [--nodes N] [--port-offset N]
#   scripts/ha-local.sh status [--dir DIR]
#   scripts/ha-local.sh stop [--dir DIR]
#
# --dir DIR        where everything goes: the PKI, the kubeconfigs, etcd's data, logs and pids
#                  (default ./.kplane-ha)
# --storage URL    the API servers' storage; without it the script starts 3 etcd members
#                  (etcd from PATH, e.g. Debian's etcd-server) and uses
#                  etcd://127.0.0.1:2379,127.0.0.1:22379,127.0.0.1:32379. With another URL no
#                  etcd is started (sqlite:// serves one API server only: use --apiservers 1)
# --apiservers N   API servers on 6443, 6444, ... (default 3)
# --nodes N        simulated nodes (default 3)
# --port-offset N  added to every port (etcd 2379/2380, 22379/22380, 32379/32380; API servers
#                  6443...; controller managers 10257, 10258; scheduler 10259; kubelet 10250), to run beside
#                  another cluster (default 0)
#
# Needs a build (npm ci or npx tsc -b). KPLANE overrides the command (default: this checkout's).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
kplane=(${KPLANE:-node "$root/packages/cli/bin/kplane.js"})

cmd="${1:-}"
[ -n "$cmd" ] && shift
dir=".kplane-ha"
storage=""
apiservers=3
nodes=3
offset=0
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir="$2"; shift 2 ;;
    --storage) storage="$2"; shift 2 ;;
    --apiservers) apiservers="$2"; shift 2 ;;
    --nodes) nodes="$2"; shift 2 ;;
    --port-offset) offset="$2"; shift 2 ;;
    *) echo "ha-local: unknown flag $1" >&2; exit 2 ;;
  esac
done
[ "$cmd" = start ] && mkdir -p "$dir"
[ -d "$dir" ] || { echo "ha-local: no $dir" >&2; exit 1; }
dir="$(cd "$dir" && pwd)"
logs="$dir/logs"
pids="$dir/pids"

etcd_client_ports=($((2379 + offset)) $((22379 + offset)) $((32379 + offset)))
etcd_peer_ports=($((2380 + offset)) $((22380 + offset)) $((32380 + offset)))

log() { echo "ha-local: $*" >&2; }

# Starts a process in the background: NAME, then the command; its output goes to logs/NAME.log.
run() {
  local name="$1"; shift
  "$@" >"$logs/$name.log" 2>&1 &
  echo $! >"$pids/$name.pid"
}

# Waits until logs/NAME.log matches PATTERN (or the process exits, or 60 s pass).
wait_for() {
  local name="$1" pattern="$2"
  for _ in $(seq 1 600); do
    if grep -qE "$pattern" "$logs/$name.log" 2>/dev/null; then return 0; fi
    if ! kill -0 "$(cat "$pids/$name.pid")" 2>/dev/null; then
      log "$name exited:"; tail -20 "$logs/$name.log" >&2; return 1
    fi
    sleep 0.1
  done
  log "$name did not get ready:"; tail -20 "$logs/$name.log" >&2; return 1
}

# Is the etcd member whose client port is $1 healthy? (Node, which kplane needs anyway, asks.)
healthy() {
  node -e 'fetch(process.argv[1]).then((r) => r.json()).then((b) => process.exit(b.health === "true" ? 0 : 1), () => process.exit(1))' "http://127.0.0.1:$1/health"
}

# SIGTERM to each named process at once, then SIGKILL to whatever did not exit within 10 s.
stop_group() {
  local stopping=() name
  for name in "$@"; do
    local f="$pids/$name.pid"
    [ -f "$f" ] || continue
    local pid; pid="$(cat "$f")"
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      stopping+=("$name=$pid")
    fi
    rm -f "$f"
  done
  [ ${#stopping[@]} -gt 0 ] || return 0
  for _ in $(seq 1 100); do
    local left=0 entry
    for entry in "${stopping[@]}"; do kill -0 "${entry#*=}" 2>/dev/null && left=1; done
    [ "$left" = 0 ] && break
    sleep 0.1
  done
  for entry in "${stopping[@]}"; do
    kill -0 "${entry#*=}" 2>/dev/null && kill -9 "${entry#*=}" 2>/dev/null || true
    log "stopped ${entry%%=*} (${entry#*=})"
  done
}

stop_all() {
  [ -d "$pids" ] || return 0
  # The components first, the API servers next, each group with SIGTERM at once (they release
  # their Leases and leave the kubernetes endpoints), then SIGKILL after 10 s; etcd last, one
  # member after the other (stopped together, they wait on each other longer).
  stop_group kubelet scheduler controller-manager-2 controller-manager-1
  stop_group $(seq -f 'apiserver-%g' "$apiservers" -1 1)
  local member
  for member in etcd-3 etcd-2 etcd-1; do stop_group "$member"; done
  # Anything else still listed.
  stop_group $(ls "$pids" 2>/dev/null | sed 's/\.pid$//')
}

start() {
  mkdir -p "$logs" "$pids"
  if ls "$pids"/*.pid >/dev/null 2>&1; then log "already running in $dir (stop it first)"; exit 1; fi
  trap 'log "start failed; stopping what started"; stop_all' ERR

  if [ -z "$storage" ]; then
    command -v etcd >/dev/null || { log "etcd is not on PATH (Debian: apt-get install etcd-server), or pass --storage URL"; exit 1; }
    local cluster="" endpoints=""
    for i in 1 2 3; do
      cluster+="${cluster:+,}etcd-$i=http://127.0.0.1:${etcd_peer_ports[$((i - 1))]}"
      endpoints+="${endpoints:+,}127.0.0.1:${etcd_client_ports[$((i - 1))]}"
    done
    for i in 1 2 3; do
      local client="${etcd_client_ports[$((i - 1))]}" peer="${etcd_peer_ports[$((i - 1))]}"
      run "etcd-$i" etcd --name "etcd-$i" --data-dir "$dir/etcd-$i" \
        --listen-client-urls "http://127.0.0.1:$client" --advertise-client-urls "http://127.0.0.1:$client" \
        --listen-peer-urls "http://127.0.0.1:$peer" --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
        --initial-cluster "$cluster" --initial-cluster-token kplane-ha --initial-cluster-state new
    done
    for i in 1 2 3; do
      local client="${etcd_client_ports[$((i - 1))]}"
      for _ in $(seq 1 300); do healthy "$client" && break; sleep 0.1; done
      healthy "$client" || { log "etcd-$i is not healthy:"; tail -20 "$logs/etcd-$i.log" >&2; false; }
    done
    storage="etcd://$endpoints"
    log "etcd: 3 members, $storage"
  fi

  # The API servers share the data dir's PKI (made by the first), so every certificate and
  # ServiceAccount token is valid on all of them: the first starts alone, the others together.
  local servers=()
  for i in $(seq 1 "$apiservers"); do
    local port=$((6442 + i + offset))
    run "apiserver-$i" "${kplane[@]}" apiserver --storage "$storage" --data-dir "$dir" --secure-port "$port"
    if [ "$i" = 1 ]; then wait_for apiserver-1 '^ready: '; fi
    servers+=(--server "https://127.0.0.1:$port")
  done
  for i in $(seq 1 "$apiservers"); do
    wait_for "apiserver-$i" '^ready: '
    log "apiserver-$i: https://127.0.0.1:$((6442 + i + offset))"
  done

  # Kubeconfigs listing every API server (kubectl uses the first; kplane's components fail over).
  "${kplane[@]}" kubeconfig --data-dir "$dir" --user kplane-admin --group system:masters "${servers[@]}" --out "$dir/admin.kubeconfig" 2>/dev/null &
  local admin_kubeconfig=$!
  # The controller manager's and the scheduler's own identities (certificates signed by the CA),
  # bound by the API servers' bootstrap policy to system:kube-controller-manager and
  # system:kube-scheduler.
  "${kplane[@]}" kubeconfig --data-dir "$dir" --user system:kube-controller-manager "${servers[@]}" --out "$dir/controller-manager.kubeconfig" 2>/dev/null
  "${kplane[@]}" kubeconfig --data-dir "$dir" --user system:kube-scheduler "${servers[@]}" --out "$dir/scheduler.kubeconfig" 2>/dev/null
  wait "$admin_kubeconfig"

  # Two controller managers as system:kube-controller-manager, one leads (Lease
  # kube-system/kube-controller-manager); each controller acts as its own ServiceAccount.
  for i in 1 2; do
    run "controller-manager-$i" "${kplane[@]}" controller-manager --kubeconfig "$dir/controller-manager.kubeconfig" \
      --secure-port $((10256 + i + offset)) --use-service-account-credentials \
      --cluster-signing-cert-file "$dir/pki/ca.crt" --cluster-signing-key-file "$dir/pki/ca.key" \
      --service-account-private-key-file "$dir/pki/sa.key"
  done

  # The scheduler as system:kube-scheduler (Lease kube-system/kube-scheduler).
  run scheduler "${kplane[@]}" scheduler --kubeconfig "$dir/scheduler.kubeconfig" --secure-port $((10259 + offset))
  # The simulated nodes (each with its own certificate, through a CSR the admin approves and
  # the controller manager signs), serving logs and exec on 10250.
  run kubelet "${kplane[@]}" kubelet --kubeconfig "$dir/admin.kubeconfig" --nodes "$nodes" --no-scheduler --data-dir "$dir" --port $((10250 + offset))
  # All of them start together.
  wait_for controller-manager-1 'serving securely'
  wait_for controller-manager-2 'serving securely'
  wait_for kubelet 'node\(s\) ready|nothing to run'

  trap - ERR
  log "ready; export KUBECONFIG=$dir/admin.kubeconfig"
  echo "export KUBECONFIG=$dir/admin.kubeconfig"
}

status() {
  for f in "$pids"/*.pid; do
    [ -f "$f" ] || continue
    local name; name="$(basename "$f" .pid)"
    if kill -0 "$(cat "$f")" 2>/dev/null; then echo "$name running ($(cat "$f"))"; else echo "$name exited"; fi
  done
}

case "$cmd" in
  start) start ;;
  stop) stop_all ;;
  status) status ;;
  *) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac

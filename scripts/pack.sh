#!/usr/bin/env bash
# Writes the tarball of every published package (as `npm publish` would ship it) to DIR
# (default: packs/). Needs a build (npm ci or tsc -b) first.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="${1:-$root/packs}"
mkdir -p "$dest"
dest="$(cd "$dest" && pwd)"
# In dependency order: api, storage, apiserver, client, runtime, controllers, kubelet, kplane, testing.
packages=(api storage apiserver client runtime controllers kubelet cli testing)
workspaces=()
for p in "${packages[@]}"; do workspaces+=("-w" "packages/$p"); done
(cd "$root" && npm pack --silent --pack-destination "$dest" "${workspaces[@]}" >/dev/null)
ls "$dest"/*.tgz

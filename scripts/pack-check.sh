#!/usr/bin/env bash
# Packs every published package, installs the tarballs into an empty folder holding a copy of
# examples/sample-operator, and runs the sample's tests there: what a user gets from the
# registry, checked before it is published. Needs a build (npm ci or tsc -b) first.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d -t kplane-pack-check.XXXXXX)"
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
# Seconds since the start, for the log: CI keeps an eye on what this step costs.
elapsed() { echo "pack-check: $1 after $(( $(date +%s) - start )) s"; }

count=$("$root/scripts/pack.sh" "$work/tarballs" | wc -l)
elapsed "$count packages packed"

# Nothing but the build and the README ships: no tests, no sources, no build info.
for t in "$work"/tarballs/*.tgz; do
  if tar -tzf "$t" | grep -E '\.test\.|test-support\.|\.tsbuildinfo$|/src/' >/dev/null; then
    echo "pack-check: $(basename "$t") ships files it should not:" >&2
    tar -tzf "$t" | grep -E '\.test\.|test-support\.|\.tsbuildinfo$|/src/' | head >&2
    exit 1
  fi
done

app="$work/sample-operator"
mkdir "$app"
(cd "$root/examples/sample-operator" && tar -cf - --exclude=node_modules --exclude=dist --exclude=package-lock.json .) | tar -xf - -C "$app"
cd "$app"
# From the npm cache where it can, without optional dependencies: better-sqlite3 (kplane's
# sqlite storage, a native module) is not installed at all, which shows that nothing on memory
# storage needs it.
npm install --prefer-offline --no-audit --no-fund --omit=optional --loglevel=error "$work"/tarballs/*.tgz >/dev/null
elapsed "installed"
test ! -e node_modules/better-sqlite3 || { echo "pack-check: better-sqlite3 was installed" >&2; exit 1; }

# The kplane command is linked and runs.
test -x node_modules/.bin/kplane || { echo "pack-check: node_modules/.bin/kplane is missing or not executable" >&2; exit 1; }
node_modules/.bin/kplane --version
# Without its optional native module, kplane's default sqlite storage says what to install.
if out=$(node_modules/.bin/kplane up --port 0 --nodes 0 --no-controllers --data-dir "$work/data" 2>&1); then
  echo "pack-check: kplane up started without better-sqlite3" >&2; exit 1
fi
grep -q '^kplane: sqlite storage needs the better-sqlite3 package: npm install better-sqlite3' <<<"$out" \
  || { echo "pack-check: unexpected message from kplane up without better-sqlite3: $out" >&2; exit 1; }

npm test --silent
elapsed "the sample operator's tests passed"

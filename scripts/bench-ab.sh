#!/usr/bin/env bash
# `make bench-ab REV=<commit>`: the create scenario of this checkout's build against <commit>'s, in
# one interleaved run (bench/ab.ts). <commit> is checked out in a git worktree beside this one
# (BENCH_AB_DIR, default /tmp/margin-bench-<short sha>), given this checkout's node_modules by a
# symlink (never installed there) and built with `node scripts/build.mjs`; a worktree already
# built at that commit is reused. It is removed at the end unless BENCH_AB_KEEP=1. Build this
# checkout first (`make build`). The other BENCH_* knobs are bench/ab.ts's.
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:?usage: scripts/bench-ab.sh <old commit>, e.g. 6ae7ed6}
sha=$(git rev-parse --verify "$rev^{commit}")
dir=${BENCH_AB_DIR:-/tmp/margin-bench-${sha:0:7}}
test -f dist/main.js || { echo "dist/main.js is missing: run \`make build\` first" >&2; exit 2; }

remove_worktree() {
  rm -f "$dir/node_modules" # the symlink, before git deletes the worktree's files
  git worktree remove --force "$dir"
}
if [ -e "$dir" ] && { [ ! -f "$dir/dist/.built" ] || [ "$(git -C "$dir" rev-parse HEAD 2>/dev/null)" != "$sha" ]; }; then
  remove_worktree
fi
if [ ! -e "$dir" ]; then
  git worktree add -f --detach "$dir" "$sha"
  ln -s "$PWD/node_modules" "$dir/node_modules"
  (cd "$dir" && node scripts/build.mjs && touch dist/.built)
fi
if [ "${BENCH_AB_KEEP:-0}" != 1 ]; then trap remove_worktree EXIT; fi
BENCH_BASELINE_DIR="$dir" node_modules/.bin/tsx bench/ab.ts

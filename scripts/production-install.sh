#!/usr/bin/env bash
# Installs the package `npm pack` wrote for production, as the Dockerfile's runtime stage does and
# test/process/production-install.test.ts proves: the tarball's files (bin/, dist/, drizzle/,
# generated/openapi.json) in DEST, and `npm ci --omit=dev` there with the lock file beside it, so
# no dev tool (tsx, esbuild, Vite, TypeScript) is installed. Then, from DEST:
#   node dist/migrate.js; node dist/create-user.js --email … --name …; node dist/main.js;
#   node dist/purge.js; bin/margin.mjs (the `margin` CLI)
# Usage: scripts/production-install.sh TARBALL LOCKFILE DEST [extra npm ci flags, e.g. --prefer-offline]
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 TARBALL LOCKFILE DEST [npm ci flags]" >&2; exit 2; }
tarball=$1 lockfile=$2 dest=$3
shift 3
mkdir -p "$dest"
tar -xzf "$tarball" -C "$dest" --strip-components=1
cp "$lockfile" "$dest/package-lock.json"
cd "$dest"
npm ci --omit=dev --no-audit --no-fund "$@"

#!/usr/bin/env bash
# Starts the built server (node dist/main.js) and waits for its first /healthz answer, on embedded
# PGlite and, when TEST_DATABASE_URL is given, on a scratch PostgreSQL database: a broken build
# fails here, not in production. Prints the time to the first answer. On PGlite it also asks once
# for each part the server loads on first use (scripts/smoke-lazy.mjs).
set -euo pipefail
cd "$(dirname "$0")/.."
test -f dist/main.js || { echo "dist/main.js is missing: run make build"; exit 1; }
PORT=${SMOKE_PORT:-18080}
work=$(mktemp -d)
pid=""
db=""
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  [ -n "$db" ] && psql "$TEST_DATABASE_URL" -qAtc "drop database if exists $db" >/dev/null 2>&1
  rm -rf "$work"
  true
}
trap cleanup EXIT

# Waits up to 30 s for the first 200 from /healthz of the server started as $pid.
first_answer() {
  local label=$1 started=$2
  for _ in $(seq 1 3000); do
    if curl -sf "http://127.0.0.1:$PORT/api/v1/healthz" >/dev/null; then
      echo "built server on $label: first /healthz answer after $(( ($(date +%s%N) - started) / 1000000 )) ms"
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || { echo "built server on $label exited:"; cat "$work/server.log"; return 1; }
    sleep 0.01
  done
  echo "built server on $label gave no /healthz answer within 30 s:"; cat "$work/server.log"; return 1
}

started=$(date +%s%N)
METRICS_PORT=$((PORT + 1))
env -u DATABASE_URL DATA_DIR="$work/data" PORT=$PORT HOST=127.0.0.1 ADMIN_EMAIL=smoke@example.com \
  ADMIN_PASSWORD=smoke-password-123 METRICS_PORT=$METRICS_PORT node dist/main.js >"$work/server.log" 2>&1 &
pid=$!
first_answer "embedded PGlite" "$started"
# The admin app of the build: its URL logged beside the first admin (standard output is no terminal
# here, so the password itself is not printed), and served.
logged_admin_url() {
  for _ in $(seq 1 200); do
    grep -qF "\"adminUrl\":\"http://localhost:$PORT/admin/\"" "$work/server.log" && return 0
    sleep 0.01
  done
  return 1
}
logged_admin_url || { echo "the first start did not log the admin app's URL:"; cat "$work/server.log"; exit 1; }
curl -sf "http://127.0.0.1:$PORT/admin/" | grep -q '<div id="root">' ||
  { echo "the built server does not serve the admin app at /admin/"; exit 1; }
node scripts/smoke-lazy.mjs "http://127.0.0.1:$PORT/api/v1" smoke@example.com smoke-password-123 \
  "http://127.0.0.1:$METRICS_PORT/metrics" || { cat "$work/server.log"; exit 1; }
kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""

if [ -n "${TEST_DATABASE_URL:-}" ]; then
  db="margin_smoke_$$"
  psql "$TEST_DATABASE_URL" -qAtc "create database $db" >/dev/null
  url="${TEST_DATABASE_URL%/*}/$db"
  DATABASE_URL="$url" node dist/migrate.js >/dev/null
  started=$(date +%s%N)
  DATABASE_URL="$url" JWT_SECRET=smoke-secret-smoke-secret-smoke-secret PORT=$PORT HOST=127.0.0.1 \
    node dist/main.js >"$work/server.log" 2>&1 &
  pid=$!
  first_answer "PostgreSQL" "$started"
fi

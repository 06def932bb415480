#!/usr/bin/env bash
# Every test, as `npm test` runs it: type check, start throwaway PostgreSQL and MariaDB on 127.0.0.1
# (installed with apt-get when missing), run the tap suites against them, stop them.
# `npm test -- PATH...` runs only the test files and folders named (every other step stays).
set -euo pipefail
cd "$(dirname "$0")/.."
shopt -s globstar nullglob

echo "== type check"
npx tsc --noEmit -p tsconfig.json

echo "== lint and format (npm run format writes the formatting; biome.jsonc says which rules and why)"
npx biome ci --error-on-warnings .

state=$(mktemp -d /tmp/svc-test-services.XXXXXX)
# The servers' logs of the last run stay in /tmp/svc-test-services.last for diagnosis.
trap 'rm -rf /tmp/svc-test-services.last; mkdir -p /tmp/svc-test-services.last; cp "$state"/*.log "$state"/pg/pg.log /tmp/svc-test-services.last/ 2>/dev/null; bash scripts/test-services.sh stop "$state"' EXIT
echo "== test services"
bash scripts/test-services.sh start "$state"
set -a
# shellcheck disable=SC1091
source "$state/env"
set +a

echo "== build the server (npm start runs dist/server) and the svc CLI"
node scripts/build-server.mjs
node scripts/build-cli.mjs

echo "== build the web console"
node scripts/build-console.mjs

echo "== container image (its base built from Debian packages once, then cached)"
bash deploy/container/build-test-image.sh || echo "the container image did not build; test/e2e/container-image.test.ts builds it again and says why"

echo "== tests"
# The TAP stream also goes to a file, so that a failure is repeated at the very end, where a CI log that
# keeps only its tail still shows which test failed and why.
tap_log="$state/tap.log"
# A test that writes the checkout's data/ (the default of npm start) leaks state into the next run.
data_before=$(ls -l --time-style=+%s.%N data 2>/dev/null || true)
set +e
files=()
if [ "$#" -eq 0 ]; then set -- test examples; fi
for path in "$@"; do
  if [ -d "$path" ]; then files+=("$path"/**/*.test.ts); else files+=("$path"); fi
done
npx tap "${files[@]}" 2>&1 | tee "$tap_log"
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ]; then
  echo "== failures (repeated from above)"
  grep -n -B 40 -A 12 '^ *not ok ' "$tap_log" | tail -n 400 || true
fi
if [ "$(ls -l --time-style=+%s.%N data 2>/dev/null || true)" != "$data_before" ]; then
  echo "== a test wrote the checkout's data/ folder: give the service it starts its own SVC_RDB_EMBEDDED_JDBC_URL and SVC_AUDIT_EMBEDDED_PATH"
  status=1
fi
exit "$status"

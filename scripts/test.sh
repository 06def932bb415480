#!/usr/bin/env bash
# Every test, as `npm test` runs it: type check, start throwaway PostgreSQL and MariaDB on 127.0.0.1
# (installed with apt-get when missing), run the tap suites against them, stop them.
set -euo pipefail
cd "$(dirname "$0")/.."
shopt -s globstar nullglob

echo "== type check"
npx tsc --noEmit -p tsconfig.json

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
npx tap "$@" test/**/*.test.ts examples/**/*.test.ts

#!/usr/bin/env bash
# Every test, as `npm test` runs it: type check, start throwaway PostgreSQL and MariaDB on 127.0.0.1
# (installed with apt-get when missing), run the tap suites against them, stop them.
set -euo pipefail
cd "$(dirname "$0")/.."
shopt -s globstar nullglob

echo "== type check"
npx tsc --noEmit -p tsconfig.json

state=$(mktemp -d /tmp/svc-test-services.XXXXXX)
trap 'bash scripts/test-services.sh stop "$state"' EXIT
echo "== test services"
bash scripts/test-services.sh start "$state"
set -a
# shellcheck disable=SC1091
source "$state/env"
set +a

echo "== build the svc CLI"
node scripts/build-cli.mjs

echo "== tests"
npx tap "$@" test/**/*.test.ts examples/**/*.test.ts

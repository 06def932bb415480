#!/usr/bin/env bash
# Every test, as `npm test` runs it: type check, then the tap suites (unit, contract, end-to-end, examples).
set -euo pipefail
cd "$(dirname "$0")/.."
shopt -s globstar nullglob

echo "== type check"
npx tsc --noEmit -p tsconfig.json

echo "== tests"
npx tap "$@" test/**/*.test.ts examples/**/*.test.ts

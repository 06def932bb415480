#!/usr/bin/env bash
# Builds the client, compiles the JUnit 5 tests (Debian's junit5, installed when missing) and runs them
# with the console launcher against the service at SVC_TEST_URL (test/clients/java-sdk.test.ts starts one).
set -euo pipefail
cd "$(dirname "$0")"
CP=$(bash build.sh | tail -1)
JARS=/usr/share/java
if [ ! -f "$JARS/junit-platform-console-standalone.jar" ]; then
  echo "installing junit5 from Debian" >&2
  apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq junit5 >&2
fi
rm -rf build/test-classes && mkdir -p build/test-classes
javac --release 17 -d build/test-classes -cp "$CP:$JARS/junit-jupiter-api.jar:$JARS/apiguardian-api.jar:$JARS/opentest4j.jar" $(find src/test/java -name '*.java')
exec java -jar "$JARS/junit-platform-console-standalone.jar" --disable-banner --disable-ansi-colors --details=tree \
  --class-path "build/test-classes:$CP" --select-package dev.svckms.client --fail-if-no-tests

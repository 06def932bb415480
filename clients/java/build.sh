#!/usr/bin/env bash
# Builds build/svc-kms-client.jar from src/main with javac and jar alone (no Maven Central here):
# the JDK and Jackson come from Debian's packages, installed when missing. The last line printed is the
# classpath to compile and run against the client.
set -euo pipefail
cd "$(dirname "$0")"
JARS=/usr/share/java
need=()
command -v javac >/dev/null || need+=(openjdk-17-jdk-headless)
[ -f "$JARS/jackson-databind.jar" ] || need+=(libjackson2-databind-java)
if [ "${#need[@]}" -gt 0 ]; then
  echo "installing ${need[*]} from Debian" >&2
  apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >&2
fi
JACKSON="$JARS/jackson-databind.jar:$JARS/jackson-core.jar:$JARS/jackson-annotations.jar"
rm -rf build/classes && mkdir -p build/classes
javac --release 17 -Xlint:all -Werror -d build/classes -cp "$JACKSON" $(find src/main/java -name '*.java') >&2
jar --create --file build/svc-kms-client.jar -C build/classes . >&2
echo "$PWD/build/svc-kms-client.jar:$JACKSON"

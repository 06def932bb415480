#!/usr/bin/env bash
# Starts throwaway PostgreSQL and MariaDB servers on 127.0.0.1 for the test suites, and makes sure the servers
# tests start themselves are there (redis-server, nats-server, a Kafka-protocol broker built from librdkafka's
# mock cluster), installing them with apt-get when they are missing. Usage:
#   scripts/test-services.sh start DIR   -> starts both, writes DIR/env (export lines with their URLs)
#   scripts/test-services.sh stop DIR    -> stops what `start` started, by PID
#   scripts/test-services.sh start-pg DIR, pg-down DIR, pg-up DIR
#                                        -> a private PostgreSQL that a test can take down and bring back
# A server that cannot be installed or started is left out of DIR/env; the tests then skip or, with
# SVC_TEST_REQUIRE_SERVICES=1, fail.
set -uo pipefail
cmd=${1:?start|stop}
dir=${2:?state directory}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
# The state folder stays root's and traversable; each server owns only its own folder below it. (Handing
# the folder itself to one server's user locks the other one out of its data directory's path.)
chmod 755 "$dir"

free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

ensure_packages() {
  local missing=()
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
  command -v mariadbd >/dev/null 2>&1 || missing+=(mariadb-server)
  command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
  command -v nats-server >/dev/null 2>&1 || missing+=(nats-server)
  # The svc CLI's completion scripts are tested in the shells they are for.
  command -v zsh >/dev/null 2>&1 || missing+=(zsh)
  command -v fish >/dev/null 2>&1 || missing+=(fish)
  [ -f /usr/include/librdkafka/rdkafka_mock.h ] || missing+=(librdkafka-dev)
  command -v gcc >/dev/null 2>&1 || missing+=(gcc)
  command -v sqlite3 >/dev/null 2>&1 || missing+=(sqlite3)
  # The browser tests (the docs page, the web console) drive Debian's chromium.
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  # The KMIP door's interoperability tests drive PyKMIP's client with Debian's python3.
  /usr/bin/python3 -c 'import kmip.pie.client' >/dev/null 2>&1 || missing+=(python3-pykmip)
  # The AWS KMS door's interoperability tests drive Debian's AWS CLI and boto3 (by their Debian paths:
  # pyenv's aws and python3 may come first on PATH).
  [ -x /usr/bin/aws ] || missing+=(awscli)
  /usr/bin/python3 -c 'import boto3' >/dev/null 2>&1 || missing+=(python3-boto3)
  # The Vault transit door's interoperability tests drive Debian's hvac.
  /usr/bin/python3 -c 'import hvac' >/dev/null 2>&1 || missing+=(python3-hvac)
  # The pkcs11 root of trust's tests run against SoftHSM2 (each test initialises tokens of its own).
  command -v softhsm2-util >/dev/null 2>&1 || missing+=(softhsm2)
  # Backup and restore tests: the databases' own dump tools.
  command -v pg_dump >/dev/null 2>&1 || missing+=(postgresql-client)
  command -v mariadb-dump >/dev/null 2>&1 || missing+=(mariadb-client)
  # Container and systemd tests: podman (runc: crun refuses hybrid cgroups), a Debian base, the unit checker.
  command -v podman >/dev/null 2>&1 || missing+=(podman)
  command -v podman-compose >/dev/null 2>&1 || missing+=(podman-compose)
  # podman-compose 1.0 (Debian 12) has no `config`: the compose file is checked with docker-compose's.
  command -v docker-compose >/dev/null 2>&1 || missing+=(docker-compose)
  [ -x /usr/sbin/runc ] || missing+=(runc)
  command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
  command -v systemd-analyze >/dev/null 2>&1 || missing+=(systemd)
  # The erase test runs PostgreSQL in German (lc_messages), which it can only load as an installed
  # locale; built as a directory, since a running server may have missed a locale-archive made later.
  if ! locale -a 2>/dev/null | grep -qi '^de_DE\.utf-\?8$'; then
    if [ "$(id -u)" = 0 ] && command -v localedef >/dev/null; then
      localedef --no-archive -i de_DE -f UTF-8 de_DE.UTF-8 >&2 || echo "test-services: localedef de_DE.UTF-8 failed" >&2
    else
      echo "test-services: the de_DE.UTF-8 locale is missing and cannot be made here" >&2
    fi
  fi
  if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      echo "test-services: installing ${missing[*]}" >&2
      apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2 || echo "test-services: apt-get install failed" >&2
    else
      echo "test-services: ${missing[*]} missing and cannot be installed here" >&2
    fi
  fi
}

wait_for() { # command, seconds
  local i
  for ((i = 0; i < $2 * 10; i++)); do eval "$1" >/dev/null 2>&1 && return 0; sleep 0.1; done
  return 1
}

start_postgres() {
  local bin port data
  bin=$(dirname "$(ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -1)")
  [ -x "$bin/initdb" ] || { echo "test-services: PostgreSQL not installed" >&2; return 1; }
  port=$(free_port)
  data="$dir/pg"
  rm -rf "$data" && mkdir -p "$data" && chown postgres "$data" 2>/dev/null
  runuser -u postgres -- "$bin/initdb" -D "$data/db" -U postgres --auth=trust -E UTF8 >"$dir/pg-initdb.log" 2>&1 || { echo "test-services: initdb failed (see $dir/pg-initdb.log)" >&2; return 1; }
  runuser -u postgres -- "$bin/pg_ctl" -D "$data/db" -l "$data/pg.log" -w -t 30 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $data -c fsync=${PG_FSYNC:-off} -c full_page_writes=${PG_FSYNC:-off} -c max_connections=200" start >&2 || { echo "test-services: PostgreSQL did not start (see $data/pg.log)" >&2; return 1; }
  head -1 "$data/db/postmaster.pid" >"$dir/pg.pid"
  echo "$bin" >"$dir/pg.bin"
  echo "$port" >"$dir/pg.port"
  wait_for "runuser -u postgres -- $bin/psql -h 127.0.0.1 -p $port -U postgres -c 'select 1'" 20 || return 1
  runuser -u postgres -- "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -q -c "create user svc password 'svc-test-password'" -c "create database svc owner svc" >&2
  {
    echo "export SVC_TEST_PG_URL=jdbc:postgresql://127.0.0.1:$port/svc"
    echo "export SVC_TEST_PG_USER=svc SVC_TEST_PG_PASSWORD=svc-test-password"
    echo "export SVC_TEST_PG_ADMIN_URL=postgres://postgres@127.0.0.1:$port/postgres"
  } >>"$dir/env"
}

start_mariadb() {
  command -v mariadbd >/dev/null || { echo "test-services: MariaDB not installed" >&2; return 1; }
  local port data sock
  port=$(free_port)
  data="$dir/mariadb"
  sock="$dir/mariadb-run/mariadb.sock"
  rm -rf "$data" "$dir/mariadb-run" && mkdir -p "$data" "$dir/mariadb-run" && chown mysql "$data" "$dir/mariadb-run" 2>/dev/null
  mariadb-install-db --no-defaults --user=mysql --datadir="$data" --auth-root-authentication-method=normal --skip-test-db >"$dir/mariadb-install.log" 2>&1 || { echo "test-services: mariadb-install-db failed (see $dir/mariadb-install.log)" >&2; return 1; }
  mariadbd --no-defaults --user=mysql --datadir="$data" --socket="$sock" --pid-file="$dir/mariadb-run/mariadb.pid" \
    --bind-address=127.0.0.1 --port="$port" --skip-name-resolve --innodb-flush-log-at-trx-commit=2 --max-connections=300 \
    >"$dir/mariadb.log" 2>&1 &
  wait_for "mariadb --no-defaults -h 127.0.0.1 -P $port -u root -e 'select 1'" 30 || { echo "test-services: MariaDB did not start (see $dir/mariadb.log)" >&2; return 1; }
  mariadb --no-defaults -h 127.0.0.1 -P "$port" -u root -e "create database svc; create user 'svc'@'%' identified by 'svc-test-password'; grant all on svc.* to 'svc'@'%';" >&2
  {
    echo "export SVC_TEST_MYSQL_URL=jdbc:mysql://127.0.0.1:$port/svc"
    echo "export SVC_TEST_MYSQL_USER=svc SVC_TEST_MYSQL_PASSWORD=svc-test-password"
    echo "export SVC_TEST_MYSQL_ADMIN_URL=mysql://root@127.0.0.1:$port/mysql"
  } >>"$dir/env"
}

# moto_server (AWS KMS emulation) ships in the machine image's pyenv Python, found by a login shell. It
# is the one stand-in the tests use: for a cloud KMS, which cannot run here.
start_moto() {
  local bin port
  bin=$(command -v moto_server 2>/dev/null || bash -lc 'command -v moto_server' 2>/dev/null)
  [ -n "$bin" ] || { echo "test-services: moto_server not found; cloud-kms tests cannot run" >&2; return 1; }
  port=$(free_port)
  "$bin" -H 127.0.0.1 -p "$port" >"$dir/moto.log" 2>&1 &
  echo $! >"$dir/moto.pid"
  wait_for "node -e 'fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' http://127.0.0.1:$port/" 30 || { echo "test-services: moto_server did not start (see $dir/moto.log)" >&2; return 1; }
  echo "export SVC_TEST_MOTO_URL=http://127.0.0.1:$port" >>"$dir/env"
}

# No Kafka broker ships in Debian or npm: librdkafka's mock cluster speaks the real protocol. Tests start
# their own (scripts/kafka-mock/kafka-mock-broker.c) and can take its brokers down and up.
build_kafka_mock() {
  local src bin
  src="$(cd "$(dirname "$0")" && pwd)/kafka-mock/kafka-mock-broker.c"
  bin="$dir/kafka-mock-broker"
  gcc -O2 -o "$bin" "$src" -lrdkafka 2>"$dir/kafka-mock-build.log" || { echo "test-services: the Kafka mock broker did not build (see $dir/kafka-mock-build.log)" >&2; return 1; }
  echo "export SVC_TEST_KAFKA_MOCK=$bin" >>"$dir/env"
}

pg_ctl_start() {
  runuser -u postgres -- "$(cat "$dir/pg.bin")/pg_ctl" -D "$dir/pg/db" -l "$dir/pg/pg.log" -w -t 30 \
    -o "-c listen_addresses=127.0.0.1 -p $(cat "$dir/pg.port") -k $dir/pg -c fsync=${PG_FSYNC:-off} -c full_page_writes=${PG_FSYNC:-off} -c max_connections=200" start >&2
  head -1 "$dir/pg/db/postmaster.pid" >"$dir/pg.pid"
}

case "$cmd" in
  start-pg)
    : >"$dir/env"
    ensure_packages
    start_postgres || exit 1
    ;;
  pg-down)
    runuser -u postgres -- "$(cat "$dir/pg.bin")/pg_ctl" -D "$dir/pg/db" -m immediate stop >&2
    ;;
  pg-up)
    pg_ctl_start
    ;;
  start)
    : >"$dir/env"
    ensure_packages
    start_postgres || true
    start_mariadb || true
    start_moto || true
    # Redis: tests start their own (they stop and restart it); here we only say where the binary is.
    command -v redis-server >/dev/null && echo "export SVC_TEST_REDIS_SERVER=$(command -v redis-server)" >>"$dir/env"
    command -v nats-server >/dev/null && echo "export SVC_TEST_NATS_SERVER=$(command -v nats-server)" >>"$dir/env"
    build_kafka_mock || true
    cat "$dir/env" >&2
    ;;
  stop)
    if [ -f "$dir/pg.pid" ]; then
      runuser -u postgres -- "$(cat "$dir/pg.bin")/pg_ctl" -D "$dir/pg/db" -m immediate stop >/dev/null 2>&1 || kill "$(cat "$dir/pg.pid")" 2>/dev/null
    fi
    [ -f "$dir/mariadb-run/mariadb.pid" ] && kill "$(cat "$dir/mariadb-run/mariadb.pid")" 2>/dev/null
    [ -f "$dir/moto.pid" ] && kill "$(cat "$dir/moto.pid")" 2>/dev/null
    rm -rf "$dir"
    ;;
  *) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
exit 0

#!/usr/bin/env bash
# Crash-recovery check for the MariaDB the MySQL operator runs: CYCLES rounds of four concurrent
# inserting clients, a SIGKILL of the server mid-write, an immediate restart on the same data
# directory, and CHECK TABLE ... EXTENDED plus a duplicate count. A server that cannot start again
# (an InnoDB assertion) or a table that fails the checks counts as a corruption; the data
# directory is then initialised again and the rounds go on. Bounded: it stops after CYCLES rounds.
#
#   hack/mariadb-crash-recovery.sh CYCLES [my.cnf line ...]
#   hack/mariadb-crash-recovery.sh 300 sync-binlog=0     # the setting that corrupts (see mysql-operator/README.md)
#   hack/mariadb-crash-recovery.sh 300                   # the members' own: sync-binlog=1
#
# Only a Unix socket in a fresh temporary directory: no TCP port, nothing outside this machine.
set -uo pipefail

cycles=${1:?usage: $0 CYCLES [my.cnf line ...]}
shift
root=$(mktemp -d /tmp/bosun-crash-recovery.XXXXXX)
pid=
cleanup() {
  if [ -n "$pid" ]; then
    kill -9 "$pid" 2> /dev/null
    wait "$pid" 2> /dev/null
  fi
  rm -rf "$root"
}
trap cleanup EXIT

{
  echo "[mysqld]"
  echo "user=$(id -un)"
  echo "datadir=$root/data"
  echo "socket=$root/sock"
  echo "pid-file=$root/pid"
  echo "log-error=$root/error.log"
  echo "skip-networking"
  # The binlog and durability lines of what baseConfig gives every member (MariaDbDialect), not
  # its replication lines: the binlog's two-phase commit with InnoDB is the path under test.
  echo "server-id=1"
  echo "log-bin=mysql-bin"
  echo "binlog-format=ROW"
  echo "innodb-flush-log-at-trx-commit=1"
  echo "sync-binlog=1"
  echo "performance-schema=OFF"
  # Extra lines come last: a later line overrides an earlier one.
  for line in "$@"; do echo "$line"; done
} > "$root/my.cnf"

sql() { mariadb -S "$root/sock" -N -e "$1"; }

init() {
  kill -9 "$pid" 2>/dev/null || true
  rm -rf "$root/data" && mkdir -p "$root/data"
  mariadb-install-db --defaults-file="$root/my.cnf" --auth-root-authentication-method=socket \
    --skip-test-db > "$root/install.log" 2>&1 || { cat "$root/install.log"; exit 1; }
  start || { tail -n 20 "$root/error.log"; echo "a fresh server does not start"; exit 1; }
  sql "CREATE DATABASE app; CREATE TABLE app.t (id BIGINT PRIMARY KEY, v VARCHAR(100))" || exit 1
}

# Starts the server; false when it does not answer within 30 s (it aborted in recovery).
start() {
  mariadbd --defaults-file="$root/my.cnf" >> "$root/out.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 300); do
    sql "SELECT 1" > /dev/null 2>&1 && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

init
corrupt=0
for round in $(seq 1 "$cycles"); do
  writers=()
  for w in 0 1 2 3; do
    (
      base=$(((round * 4 + w) * 100000))
      for k in $(seq 1 400); do echo "INSERT INTO t VALUES ($((base + k)), REPEAT('x', 60));"; done |
        mariadb -S "$root/sock" app > /dev/null 2>&1 || true
    ) &
    writers+=($!)
  done
  sleep "0.$((RANDOM % 9 + 1))"
  kill -9 "$pid"
  wait "$pid" 2> /dev/null || true
  wait "${writers[@]}" 2> /dev/null || true
  if ! start; then
    corrupt=$((corrupt + 1))
    echo "round $round: the server does not start again:"
    grep -m1 -A1 "Assertion failure" "$root/error.log" || tail -n 3 "$root/error.log"
    init
    continue
  fi
  rows=$(sql "SELECT COUNT(*) FROM app.t" 2>&1)
  distinct=$(sql "SELECT COUNT(DISTINCT id) FROM app.t" 2>&1)
  check=$(sql "CHECK TABLE app.t EXTENDED" 2>&1 | awk -F'\t' '{print $NF}' | tail -n 1)
  if [ "$rows" != "$distinct" ] || [ "$check" != "OK" ]; then
    corrupt=$((corrupt + 1))
    echo "round $round: $rows rows, $distinct distinct ids, CHECK TABLE: $check"
    init
  fi
  if [ $((round % 50)) -eq 0 ]; then echo "round $round: $corrupt corrupted so far"; fi
done
printf '%-40s %8s %10s\n' "settings" "rounds" "corrupted"
label="$*"
[ -n "$label" ] || label="as the members run (sync-binlog=1)"
printf '%-40s %8s %10s\n' "$label" "$cycles" "$corrupt"

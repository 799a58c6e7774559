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
# shellcheck source=hack/mariadb-scratch.sh
. "$(dirname "$0")/mariadb-scratch.sh"
trap scratch_cleanup EXIT
# The binlog's two-phase commit with InnoDB is the path under test: no replication lines.
scratch_cnf "$@"

scratch_init
corrupt=0
for round in $(seq 1 "$cycles"); do
  writers=()
  for w in 0 1 2 3; do
    (
      base=$(((round * 4 + w) * 100000))
      for k in $(seq 1 400); do echo "INSERT INTO t VALUES ($((base + k)), REPEAT('x', 60));"; done |
        mariadb --defaults-file="$root/my.cnf" -S "$root/sock" app > /dev/null 2>&1 || true
    ) &
    writers+=($!)
  done
  sleep "0.$((RANDOM % 9 + 1))"
  kill -9 "$pid"
  wait "$pid" 2> /dev/null || true
  wait "${writers[@]}" 2> /dev/null || true
  if ! scratch_start; then
    corrupt=$((corrupt + 1))
    scratch_report_unstartable "$round"
    scratch_init
    continue
  fi
  rows=$(sql "SELECT COUNT(*) FROM app.t" 2>&1)
  distinct=$(sql "SELECT COUNT(DISTINCT id) FROM app.t" 2>&1)
  check=$(sql "CHECK TABLE app.t EXTENDED" 2>&1 | awk -F'\t' '{print $NF}' | tail -n 1)
  if [ "$rows" != "$distinct" ] || [ "$check" != "OK" ]; then
    corrupt=$((corrupt + 1))
    echo "round $round: $rows rows, $distinct distinct ids, CHECK TABLE: $check"
    scratch_init
  fi
  if [ $((round % 50)) -eq 0 ]; then echo "round $round: $corrupt corrupted so far"; fi
done
printf '%-40s %8s %10s\n' "settings" "rounds" "corrupted"
label="$*"
[ -n "$label" ] || label="as the members run (sync-binlog=1)"
printf '%-40s %8s %10s\n' "$label" "$cycles" "$corrupt"

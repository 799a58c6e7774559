#!/usr/bin/env bash
# Durability check of MariaDB's own crash recovery, the one the MySQL operator's members run:
# ROUNDS rounds of four clients that each record every insert the server acknowledged, the server
# frozen (SIGSTOP) for up to FREEZE seconds mid-write, killed (SIGKILL) as it thaws, started again
# on the same data directory; then every acknowledged id must be in the table, no id twice, and
# CHECK TABLE must pass. Chaos seed 840758 lost one acknowledged row on a former primary frozen and
# killed as it thawed; this asks whether the server loses one without the operator or replication.
# A failing round prints its ids and the recovery lines of the error log, then the data directory is
# initialised again and the rounds go on. Bounded: it stops after ROUNDS rounds.
#
#   hack/mariadb-acked-recovery.sh ROUNDS [FREEZE] [my.cnf line ...]
#   hack/mariadb-acked-recovery.sh 200 3             # the members' durability settings
#   hack/mariadb-acked-recovery.sh 200 0             # a plain kill, no freeze
#
# Only a Unix socket in a fresh temporary directory: no TCP port, nothing outside this machine.
set -uo pipefail

rounds=${1:?usage: $0 ROUNDS [FREEZE] [my.cnf line ...]}
freeze=${2:-3}
shift
[ $# -gt 0 ] && shift
root=$(mktemp -d /tmp/bosun-acked-recovery.XXXXXX)
# shellcheck source=hack/mariadb-scratch.sh
. "$(dirname "$0")/mariadb-scratch.sh"
trap scratch_cleanup EXIT
# The semi-sync lines every member boots with, then the caller's.
scratch_cnf gtid-strict-mode=ON rpl-semi-sync-slave-enabled=ON \
  rpl-semi-sync-master-wait-point=AFTER_SYNC "$@"

scratch_init
failed=0
acked_total=0
for round in $(seq 1 "$rounds"); do
  : > "$root/error.log"
  writers=()
  for w in 0 1 2 3; do
    (
      base=$(((round * 4 + w) * 100000))
      # The SELECT prints an id only after its INSERT was acknowledged (autocommit); the client
      # stops at the first error, so no id is printed for an insert the server did not confirm.
      for k in $(seq 1 3000); do
        echo "INSERT INTO t VALUES ($((base + k)), REPEAT('x', 60)); SELECT $((base + k));"
      done | mariadb --defaults-file="$root/my.cnf" -S "$root/sock" -N -B --unbuffered app \
        > "$root/acked.$w" 2> /dev/null || true
    ) &
    writers+=($!)
  done
  sleep "0.$((RANDOM % 9 + 1))"
  hold=0
  if [ "$freeze" != 0 ]; then
    hold="$((RANDOM % freeze)).$((RANDOM % 10))"
    kill -STOP "$pid"
    sleep "$hold"
    kill -CONT "$pid"
  fi
  kill -9 "$pid"
  wait "$pid" 2> /dev/null || true
  wait "${writers[@]}" 2> /dev/null || true
  cat "$root"/acked.? | sort -u > "$root/acked"
  acked=$(wc -l < "$root/acked")
  acked_total=$((acked_total + acked))
  if ! scratch_start; then
    failed=$((failed + 1))
    scratch_report_unstartable "$round (frozen ${hold}s)"
    scratch_init
    continue
  fi
  sql "SELECT id FROM app.t" | sort -u > "$root/present"
  missing=$(comm -23 "$root/acked" "$root/present" | wc -l)
  rows=$(sql "SELECT COUNT(*) FROM app.t")
  distinct=$(sql "SELECT COUNT(DISTINCT id) FROM app.t")
  check=$(sql "CHECK TABLE app.t EXTENDED" 2>&1 | awk -F'\t' '{print $NF}' | tail -n 1)
  if [ "$missing" != 0 ] || [ "$rows" != "$distinct" ] || [ "$check" != "OK" ]; then
    failed=$((failed + 1))
    echo "round $round (frozen ${hold}s): $acked acknowledged, $missing missing" \
      "($(comm -23 "$root/acked" "$root/present" | head -n 5 | tr '\n' ' '))," \
      "$rows rows, $distinct distinct ids, CHECK TABLE: $check"
    grep -E "recover|Recover|prepared|rolled back|rollback|Rollback|truncat|XA" "$root/error.log" \
      | head -n 20 | sed 's/^/    /'
    [ -n "${KEEP:-}" ] && cp -a "$root/data" "$root/failed-data-$round"
    scratch_init
  fi
  if [ $((round % 25)) -eq 0 ]; then
    echo "round $round: $acked_total acknowledged so far, $failed failed rounds"
  fi
done
printf '%-48s %8s %12s %8s\n' "settings" "rounds" "acknowledged" "failed"
label="freeze up to ${freeze}s then kill${*:+, $*}"
printf '%-48s %8s %12s %8s\n' "$label" "$rounds" "$acked_total" "$failed"
[ "$failed" = 0 ]

# Sourced by the MariaDB crash-recovery checks (mariadb-crash-recovery.sh,
# mariadb-acked-recovery.sh): one throwaway server in "$root" on a Unix socket only, with the binlog
# and durability lines of what baseConfig gives every member (MariaDbDialect). The caller sets
# root (a fresh temporary directory) and may add my.cnf lines with scratch_cnf's arguments.
pid=

# Writes "$root/my.cnf": the members' durability lines, then the caller's (a later line overrides).
scratch_cnf() {
  {
    echo "[mysqld]"
    echo "user=$(id -un)"
    echo "datadir=$root/data"
    echo "socket=$root/sock"
    echo "pid-file=$root/pid"
    echo "log-error=$root/error.log"
    echo "skip-networking"
    echo "server-id=1"
    echo "log-bin=mysql-bin"
    echo "binlog-format=ROW"
    echo "innodb-flush-log-at-trx-commit=1"
    echo "sync-binlog=1"
    echo "performance-schema=OFF"
    for line in "$@"; do echo "$line"; done
  } > "$root/my.cnf"
}

sql() { mariadb --defaults-file="$root/my.cnf" -S "$root/sock" -N -B -e "$1"; }

# Starts the server; false when it does not answer within 30 s (it aborted in recovery).
scratch_start() {
  mariadbd --defaults-file="$root/my.cnf" >> "$root/out.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 300); do
    sql "SELECT 1" > /dev/null 2>&1 && return 0
    kill -0 "$pid" 2> /dev/null || return 1
    sleep 0.1
  done
  return 1
}

# A new data directory with an empty table app.t (id BIGINT PRIMARY KEY, v VARCHAR(100)).
scratch_init() {
  if [ -n "$pid" ]; then
    kill -9 "$pid" 2> /dev/null
    wait "$pid" 2> /dev/null
  fi
  rm -rf "$root/data" && mkdir -p "$root/data"
  mariadb-install-db --defaults-file="$root/my.cnf" --auth-root-authentication-method=socket \
    --skip-test-db > "$root/install.log" 2>&1 || { cat "$root/install.log"; exit 1; }
  scratch_start || { tail -n 20 "$root/error.log"; echo "a fresh server does not start"; exit 1; }
  sql "CREATE DATABASE app; CREATE TABLE app.t (id BIGINT PRIMARY KEY, v VARCHAR(100))" || exit 1
}

# Kills the server (thawing it first) and removes "$root" unless KEEP is set.
scratch_cleanup() {
  if [ -n "$pid" ]; then
    kill -CONT "$pid" 2> /dev/null
    kill -9 "$pid" 2> /dev/null
    wait "$pid" 2> /dev/null
  fi
  [ -n "${KEEP:-}" ] || rm -rf "$root"
}

# "round R: the server does not start again" with InnoDB's assertion, for a failed restart.
scratch_report_unstartable() {
  echo "round $1: the server does not start again:"
  grep -m1 -A1 "Assertion failure" "$root/error.log" || tail -n 3 "$root/error.log"
}

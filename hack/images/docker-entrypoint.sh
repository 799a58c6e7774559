#!/bin/sh
# The part of the official MariaDB image's entrypoint contract that Bosun's MySQL Pods rely on,
# for the Debian-built workloads image: on an empty data directory, initialise it, set the root
# password from MARIADB_ROOT_PASSWORD (root@localhost and root@'%'), run
# /docker-entrypoint-initdb.d/*.sh and *.sql against a server that listens on no network, stop
# it; then exec the server given as arguments, as the mysql user.
set -eu
if [ "${1:-}" = "mariadbd" ] || [ "${1:-}" = "mysqld" ]; then
  DATADIR=/var/lib/mysql
  SOCKET=/run/mysqld/mysqld.sock
  mkdir -p /run/mysqld "$DATADIR"
  if [ "$(id -u)" = 0 ]; then
    chown -R mysql:mysql /run/mysqld "$DATADIR"
    set -- "$@" --user=mysql
  fi
  if [ ! -d "$DATADIR/mysql" ]; then
    : "${MARIADB_ROOT_PASSWORD:?the data directory is empty and MARIADB_ROOT_PASSWORD is not set}"
    echo "entrypoint: initialising $DATADIR"
    mariadb-install-db --user=mysql --datadir="$DATADIR" --auth-root-authentication-method=normal \
      --skip-test-db >/dev/null
    "$@" --skip-networking --socket="$SOCKET" --skip-log-bin &
    pid=$!
    i=0
    until mariadb --protocol=socket --socket="$SOCKET" -uroot -e 'SELECT 1' >/dev/null 2>&1; do
      i=$((i + 1)); [ $i -lt 120 ] || { echo "entrypoint: temporary server did not start" >&2; exit 1; }
      sleep 0.5
    done
    mariadb --protocol=socket --socket="$SOCKET" -uroot <<SQL
SET sql_log_bin = 0;
ALTER USER 'root'@'localhost' IDENTIFIED BY '$MARIADB_ROOT_PASSWORD';
CREATE USER IF NOT EXISTS 'root'@'%' IDENTIFIED BY '$MARIADB_ROOT_PASSWORD';
GRANT ALL PRIVILEGES ON *.* TO 'root'@'%' WITH GRANT OPTION;
SQL
    for f in /docker-entrypoint-initdb.d/*; do
      case "$f" in
        *.sh) echo "entrypoint: running $f"; MYSQL_UNIX_PORT="$SOCKET" sh "$f" ;;
        *.sql) echo "entrypoint: running $f"
          mariadb --protocol=socket --socket="$SOCKET" -uroot -p"$MARIADB_ROOT_PASSWORD" < "$f" ;;
      esac
    done
    kill "$pid"; wait "$pid" || true
    echo "entrypoint: initialised"
  fi
fi
exec "$@"

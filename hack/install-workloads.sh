#!/usr/bin/env bash
# Installs, once, the real servers the operators' tests run as their workloads:
#   etcd (Debian's etcd-server/etcd-client) for the etcd operator's members,
#   MariaDB (Debian's mariadb-server/mariadb-client/mariadb-backup) for the MySQL operator's instances,
#   mysqld_exporter (Debian's prometheus-mysqld-exporter 0.14) for their metrics sidecar,
#   Prometheus (Debian's prometheus 2.42) for the WebService canary judge's query gate,
#   s3rver (npm, pinned) as the S3-compatible object store the backup tests write to.
# Usage: hack/install-workloads.sh   -> prints the folder holding the s3rver launcher.
# Cache: ${BOSUN_CACHE:-~/.cache/bosun}/s3rver ; a second run returns immediately.
set -euo pipefail
CACHE=${BOSUN_CACHE:-$HOME/.cache/bosun}
S3RVER_VERSION=3.7.1
log() { echo "[workloads] $*" >&2; }
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo

missing=()
for p in etcd-server etcd-client mariadb-server mariadb-client mariadb-backup prometheus-mysqld-exporter prometheus nodejs npm; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
# A machine may carry node and npm from elsewhere: then Debian's are not needed.
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  missing=("${missing[@]/nodejs}"); missing=("${missing[@]/npm}")
fi
read -r -a missing <<<"${missing[*]}"
if [ ${#missing[@]} -gt 0 ]; then
  log "installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -q >&2
  # The machine's policy keeps the packages from starting a system MariaDB or exporter: tests
  # start their own.
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi

S3="$CACHE/s3rver"
if [ ! -x "$S3/node_modules/.bin/s3rver" ] || ! grep -q "\"version\": \"$S3RVER_VERSION\"" "$S3/node_modules/s3rver/package.json" 2>/dev/null; then
  log "installing s3rver $S3RVER_VERSION from npm into $S3"
  mkdir -p "$S3"
  npm install --no-audit --no-fund --loglevel=error --prefix "$S3" "s3rver@$S3RVER_VERSION" >&2
fi
echo "$S3/node_modules/.bin"

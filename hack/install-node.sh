#!/usr/bin/env bash
# Installs, once, what a real Kubernetes node on this machine needs besides the binaries that
# hack/install-control-plane.sh builds (kubelet, kube-proxy, kube-scheduler, pause):
#   - Debian packages: containerd (CRI built in), runc, the CNI plugins, iptables, conntrack,
#     debootstrap, dnsmasq (cluster DNS);
#   - container images without a registry, as docker-archive tarballs that `ctr images import`
#     loads and Jib takes as a base (`tar://`):
#       pause      the pod sandbox (Kubernetes' own pause.c from the control-plane build)
#       workloads  Debian bookworm minbase + MariaDB 10.11 server and client (with the official
#                  image's entrypoint contract: hack/images/docker-entrypoint.sh), etcd 3.4,
#                  busybox (a small HTTP server for WebService samples) and dnsmasq (cluster DNS)
#       jre        Debian bookworm minbase + OpenJDK 17 JRE + the MariaDB client (the operators'
#                  base: the MySQL operator runs mariadb-dump and mariadb for backups/restores)
# Each image is cached by content (a hash of its recipe and inputs): a second run rebuilds nothing,
# and a changed recipe rebuilds only its image.
# Usage: hack/install-node.sh -> prints the folder holding <name>.tar and <name>.ref for each image.
set -euo pipefail
CACHE=${BOSUN_CACHE:-$HOME/.cache/bosun}
HERE=$(cd "$(dirname "$0")" && pwd)
log() { echo "[node] $*" >&2; }
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo

missing=()
for p in containerd runc containernetworking-plugins iptables conntrack debootstrap dnsmasq-base \
  iproute2 python3; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi

BIN=$("$HERE/install-control-plane.sh")
MIRROR=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
MIRROR=${MIRROR:-http://deb.debian.org/debian}
mkdir -p "$CACHE/images"
WORK=$(mktemp -d "$CACHE/images/build.XXXXXX")
trap '$SUDO rm -rf "$WORK"' EXIT
CURRENT="$CACHE/images/current"
# Before images were cached one by one, current was a link to one folder holding them all.
[ -L "$CURRENT" ] && rm -f "$CURRENT"
mkdir -p "$CURRENT"
KEEP=(current)

# rootfs NAME PACKAGES: a Debian bookworm minbase tree with PACKAGES, trimmed of docs and caches.
rootfs() {
  local name=$1 packages=$2 dir="$WORK/$1"
  log "building the $name image from Debian packages ($packages; about a minute)"
  $SUDO debootstrap --variant=minbase --include="$packages" bookworm "$dir" "$MIRROR" >"$WORK/$name.log" 2>&1 \
    || { tail -20 "$WORK/$name.log" >&2; exit 1; }
  $SUDO rm -rf "$dir"/usr/share/doc/* "$dir"/usr/share/man/* "$dir"/usr/share/locale/* \
    "$dir"/var/cache/apt/* "$dir"/var/lib/apt/lists/* "$dir"/var/log/*
  # The images run as any user a Pod names (the operators as 65532): world-writable scratch space.
  $SUDO chmod 1777 "$dir/tmp"
}

# image NAME [INPUT FILE...]: NAME.tar and NAME.ref in current/, built by build_NAME OUT KEY unless
# a build with the same recipe is cached. The key hashes the recipe (build_NAME and rootfs as the
# shell sees them), image-archive.py and the input files, so editing one image's recipe or files
# rebuilds that image only.
image() {
  local name=$1; shift
  local key
  key=$({ declare -f "build_$name" rootfs; cat "$HERE/image-archive.py" "$@"; } | sha256sum | cut -c1-12)
  local out="$CACHE/images/$name-$key"
  if [ ! -f "$out/done" ]; then
    rm -rf "$out"; mkdir -p "$out"
    "build_$name" "$out" "$key"
    touch "$out/done"
  fi
  ln -sfn "$out/$name.tar" "$CURRENT/$name.tar"
  ln -sfn "$out/$name.ref" "$CURRENT/$name.ref"
  KEEP+=("$name-$key")
}

# pause: one static binary.
build_pause() {
  mkdir -p "$WORK/pause"
  cp "$BIN/pause" "$WORK/pause/pause"
  python3 "$HERE/image-archive.py" "$WORK/pause" "$1/pause.tar" docker.io/bosun/pause:3.4 \
    --entrypoint /pause >"$1/pause.ref"
}

build_workloads() {
  rootfs workloads "mariadb-server,mariadb-client,mariadb-backup,prometheus-mysqld-exporter,etcd-server,etcd-client,busybox,dnsmasq-base,procps,iproute2"
  # busybox's applets (httpd, wget, nslookup, sh tools) under their own names.
  $SUDO chroot "$WORK/workloads" /bin/busybox --install -s /usr/local/bin
  # The MariaDB image contract the MySQL operator's Pods use (docker-entrypoint.sh, initdb.d).
  $SUDO install -m 0755 "$HERE/images/docker-entrypoint.sh" "$WORK/workloads/usr/local/bin/docker-entrypoint.sh"
  $SUDO mkdir -p "$WORK/workloads/docker-entrypoint-initdb.d"
  python3 "$HERE/image-archive.py" "$WORK/workloads" "$1/workloads.tar" "docker.io/bosun/workloads:$2" \
    >"$1/workloads.ref"
}

build_jre() {
  rootfs jre "openjdk-17-jre-headless,mariadb-client"
  python3 "$HERE/image-archive.py" "$WORK/jre" "$1/jre.tar" "docker.io/bosun/jre17:$2" \
    --env JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64 >"$1/jre.ref"
}

image pause "$BIN/pause"
image workloads "$HERE"/images/*
image jre

# Builds no current image uses are of no use any more (nor are folders of the older layout).
for d in "$CACHE"/images/*; do
  keep=0
  for k in "${KEEP[@]}"; do [ "$(basename "$d")" = "$k" ] && keep=1; done
  [ "$d" = "$WORK" ] || [ $keep = 1 ] || $SUDO rm -rf "$d"
done
log "images ready in $CURRENT: $(cat "$CURRENT"/*.ref | tr '\n' ' ')"
echo "$CURRENT"

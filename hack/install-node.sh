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
# Images are cached by content: the key is a hash of this script, so a second run rebuilds nothing.
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
KEY=$(cat "$0" "$HERE/image-archive.py" "$HERE"/images/* | sha256sum | cut -c1-12)
OUT="$CACHE/images/$KEY"
if [ -f "$OUT/done" ]; then ln -sfn "$OUT" "$CACHE/images/current"; echo "$OUT"; exit 0; fi
mkdir -p "$OUT"
MIRROR=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
MIRROR=${MIRROR:-http://deb.debian.org/debian}
WORK=$(mktemp -d "$CACHE/images/build.XXXXXX")
trap '$SUDO rm -rf "$WORK"' EXIT

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

# pause: one static binary.
mkdir -p "$WORK/pause"
cp "$BIN/pause" "$WORK/pause/pause"
python3 "$HERE/image-archive.py" "$WORK/pause" "$OUT/pause.tar" docker.io/bosun/pause:3.4 \
  --entrypoint /pause >"$OUT/pause.ref"

rootfs workloads "mariadb-server,mariadb-client,etcd-server,etcd-client,busybox,dnsmasq-base,procps,iproute2"
# busybox's applets (httpd, wget, nslookup, sh tools) under their own names.
$SUDO chroot "$WORK/workloads" /bin/busybox --install -s /usr/local/bin
# The MariaDB image contract the MySQL operator's Pods use (docker-entrypoint.sh, initdb.d).
$SUDO install -m 0755 "$HERE/images/docker-entrypoint.sh" "$WORK/workloads/usr/local/bin/docker-entrypoint.sh"
$SUDO mkdir -p "$WORK/workloads/docker-entrypoint-initdb.d"
python3 "$HERE/image-archive.py" "$WORK/workloads" "$OUT/workloads.tar" "docker.io/bosun/workloads:$KEY" \
  >"$OUT/workloads.ref"

rootfs jre "openjdk-17-jre-headless,mariadb-client"
python3 "$HERE/image-archive.py" "$WORK/jre" "$OUT/jre.tar" "docker.io/bosun/jre17:$KEY" \
  --env JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64 >"$OUT/jre.ref"

touch "$OUT/done"
# A stable path for the build (pom.xml's node-image profile takes the JRE base from it).
ln -sfn "$OUT" "$CACHE/images/current"
# Older image builds are of no use once the script changed.
find "$CACHE/images" -mindepth 1 -maxdepth 1 -type d ! -name "$KEY" ! -name current -exec $SUDO rm -rf {} +
log "images ready in $OUT: $(cat "$OUT"/*.ref | tr '\n' ' ')"
echo "$OUT"

#!/usr/bin/env bash
# Installs what the local control plane needs, once, and caches it:
#   etcd (Debian's etcd-server) and kube-apiserver + kube-controller-manager v1.20.2 built offline
#   from Debian bookworm's `kubernetes` source package (the only way to get them on a machine that
#   reaches no download site but Debian's mirror), and from the same build the real node's
#   kubelet, kube-proxy and kube-scheduler plus the pod sandbox's `pause` (Kubernetes' own pause.c).
# Usage: hack/install-control-plane.sh   -> prints the folder holding the binaries.
# Cache: ${BOSUN_CACHE:-~/.cache/bosun}/kube-v1.20.2/bin ; a second run returns immediately.
set -euo pipefail
CACHE=${BOSUN_CACHE:-$HOME/.cache/bosun}
PREFIX="$CACHE/kube-v1.20.2"
BIN="$PREFIX/bin"
DEB_VERSION=1.20.5+really1.20.2-1.1+deb12u1
log() { echo "[control-plane] $*" >&2; }
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo

apt_ready=0
apt_install() {
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ $apt_ready = 0 ]; then log "apt-get update"; $SUDO apt-get update -q >&2; apt_ready=1; fi
  log "installing Debian packages: ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
}

apt_install etcd-server etcd-client openssl
BINARIES=(kube-apiserver kube-controller-manager kubelet kube-proxy kube-scheduler pause)
cached=1
for b in "${BINARIES[@]}"; do [ -x "$BIN/$b" ] || cached=0; done
if [ $cached = 1 ]; then
  echo "$BIN"; exit 0
fi

log "Kubernetes v1.20.2 binaries not cached in $BIN: building them from Debian's source package (about 10 minutes on 2 cores, once)"
# deb-src entries for the configured bookworm mirror, derived from the existing entry.
if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
  awk 'BEGIN{RS="";ORS="\n\n"} NR==1' /etc/apt/sources.list.d/debian.sources \
    | sed -e 's/^Types:.*/Types: deb-src/' -e 's/^Suites:.*/Suites: bookworm/' \
    | $SUDO tee /etc/apt/sources.list.d/bookworm-src.sources >/dev/null
  apt_ready=0
fi
if [ $apt_ready = 0 ]; then log "apt-get update"; $SUDO apt-get update -q >&2; apt_ready=1; fi
apt_install golang-go dpkg-dev make rsync golang-github-modern-go-reflect2-dev bc gcc libc6-dev

WORK="$PREFIX/build"
mkdir -p "$WORK/src" "$BIN"
cd "$WORK/src"
if [ ! -f "kubernetes_${DEB_VERSION}.dsc" ]; then
  log "downloading the kubernetes source package"
  apt-get source --download-only "kubernetes=${DEB_VERSION}" >&2
fi
export GOPATH="$WORK/gopath"
K="$GOPATH/src/k8s.io/kubernetes"
if [ ! -d "$K" ]; then
  log "unpacking sources"
  rm -rf k8s
  dpkg-source -x "kubernetes_${DEB_VERSION}.dsc" k8s >/dev/null
  mkdir -p "$GOPATH/src/k8s.io"
  mv k8s "$K"
  # The vendored reflect2 1.0.1 segfaults when built with Go >= 1.18: use Debian's 1.0.2.
  R="$K/vendor/github.com/modern-go/reflect2"
  find "$R" -maxdepth 1 -type f ! -name LICENSE ! -name BUILD -delete
  cp /usr/share/gocode/src/github.com/modern-go/reflect2/*.go "$R/"
fi
cd "$K"
export CGO_ENABLED=0 GOPROXY=off GOFLAGS= GOCACHE="$WORK/gocache"
export KUBE_GIT_VERSION=v1.20.2 KUBE_GIT_TREE_STATE=clean KUBE_GIT_COMMIT=faecb196815e248d3ecfb03c680a4507229c2a56
log "generating code (make generated_files)"
make generated_files >&2
log "compiling kube-apiserver, kube-controller-manager, kubelet, kube-proxy and kube-scheduler"
make WHAT="cmd/kube-apiserver cmd/kube-controller-manager cmd/kubelet cmd/kube-proxy cmd/kube-scheduler" >&2
cp _output/bin/kube-apiserver _output/bin/kube-controller-manager _output/bin/kubelet \
  _output/bin/kube-proxy _output/bin/kube-scheduler "$BIN/"
# The pod sandbox: one static binary that holds the pod's namespaces and reaps zombies.
gcc -Os -static -o "$BIN/pause" build/pause/linux/pause.c
log "built $("$BIN/kube-apiserver" --version); removing the 2 GB build tree"
cd / && rm -rf "$WORK"
echo "$BIN"

#!/usr/bin/env bash
# Builds, once per commit, what an earlier commit of this repository shipped: its four operator
# images (Jib on the real node's JRE base, as `-Pnode-image` builds them) and its platform chart
# (assembled as the platform module's build assembles it). The upgrade test (e2e
# RealNodeChartUpgradeIT) installs these, then upgrades to the current charts.
# The images are tagged git-<commit> instead of the build's version, so that containerd keeps them
# apart from the current ones and `helm upgrade` to the current charts changes every operator's
# image, as an upgrade to a new release does.
# The source comes from `git archive` (no worktree is registered); the build is offline: the
# earlier commit uses the dependencies the current build has already fetched.
# Usage: hack/previous-release.sh COMMIT -> prints the folder holding images/<operator>.tar,
#        platform-chart/, source/<operator>-operator/samples/ (the samples as they were) and tag
#        (the images' tag). Cached under ~/.cache/bosun/previous/<full commit>.
set -euo pipefail
COMMIT=${1:?usage: hack/previous-release.sh COMMIT}
CACHE=${BOSUN_CACHE:-$HOME/.cache/bosun}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
log() { echo "[previous] $*" >&2; }

if ! FULL=$(git -C "$ROOT" rev-parse --verify --quiet "$COMMIT^{commit}"); then
  echo "commit $COMMIT is not in this clone (a shallow clone? fetch it with git fetch --unshallow)" >&2
  exit 1
fi
SHORT=$(git -C "$ROOT" rev-parse --short=7 "$FULL")
OUT="$CACHE/previous/$FULL"
if [ -f "$OUT/tag" ]; then
  echo "$OUT"
  exit 0
fi

mkdir -p "$CACHE/previous"
WORK=$(mktemp -d "$CACHE/previous/build.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
log "building the images and charts of $SHORT (once; cached in $OUT)"
start=$(date +%s)
mkdir "$WORK/src" "$WORK/out" "$WORK/out/images"
git -C "$ROOT" archive "$FULL" | tar -x -C "$WORK/src"
TAG="git-$SHORT"
(cd "$WORK/src" && nice mvn -o -B -q package -Pnode-image -DskipTests -DskipITs \
  -Dspotless.check.skip=true -Dimage.tag="$TAG" >&2)
for operator in webservice configsync etcd mysql; do
  cp "$WORK/src/$operator-operator/target/jib-image.tar" "$WORK/out/images/$operator.tar"
  mkdir -p "$WORK/out/source/$operator-operator"
  cp -r "$WORK/src/$operator-operator/samples" "$WORK/out/source/$operator-operator/samples"
done
# The platform module assembles the chart; commits before it existed assembled it in e2e.
CHART="$WORK/src/platform/target/platform-chart"
[ -d "$CHART" ] || CHART="$WORK/src/e2e/target/platform-chart"
cp -rL "$CHART" "$WORK/out/platform-chart"
echo "$TAG" >"$WORK/out/tag"
rm -rf "$OUT"
mv "$WORK/out" "$OUT"
log "built $SHORT in $(( $(date +%s) - start )) s"
echo "$OUT"

#!/usr/bin/env bash
# The e2e suite on kind with the real operator images (mvn -Pkind -pl e2e verify runs this first).
# Needs a Docker engine plus the kind and kubectl binaries, which the Bosun development machines do
# not have: there the suite runs on the local control plane instead (the default).
#   hack/kind-e2e.sh OUT_KUBECONFIG   creates (or reuses) cluster "bosun-e2e", builds the four operator
#                                     images with Jib into Docker, loads them, writes the kubeconfig.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:?usage: hack/kind-e2e.sh OUT_KUBECONFIG}
CLUSTER=${BOSUN_KIND_CLUSTER:-bosun-e2e}
for tool in docker kind; do
  command -v "$tool" >/dev/null 2>&1 || { echo "kind-e2e: '$tool' is not installed; -Pkind needs Docker and kind" >&2; exit 2; }
done
docker info >/dev/null 2>&1 || { echo "kind-e2e: no Docker engine answers; -Pkind needs one" >&2; exit 2; }

if ! kind get clusters | grep -qx "$CLUSTER"; then
  echo "[kind-e2e] creating kind cluster $CLUSTER" >&2
  kind create cluster --name "$CLUSTER" --wait 120s >&2
fi

OPERATORS=(webservice-operator configsync-operator etcd-operator mysql-operator)
echo "[kind-e2e] building the operator images with Jib into Docker" >&2
mvn -B -q --no-transfer-progress -Pimage -DskipTests -DskipITs \
  -pl "$(IFS=,; echo "${OPERATORS[*]}")" -am compile jib:dockerBuild >&2
TAG=$(mvn -q -N help:evaluate -Dexpression=image.tag -DforceStdout)
for op in "${OPERATORS[@]}"; do
  echo "[kind-e2e] loading docker.io/bosun/$op:$TAG into $CLUSTER" >&2
  kind load docker-image --name "$CLUSTER" "docker.io/bosun/$op:$TAG" >&2
done
kind get kubeconfig --name "$CLUSTER" > "$OUT"
echo "[kind-e2e] kubeconfig written to $OUT" >&2

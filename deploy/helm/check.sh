#!/usr/bin/env bash
# Checks the Helm chart as CI does: helm lint --strict and helm template with
# the default values and each of wayfarer/ci/*.yaml, what the rendered pod
# promises (non-root, read-only root filesystem, no capabilities, metrics off
# the public Services, a grace period longer than drain + grace), and that
# values which would break a fleet are refused.
#
# Needs Go: helm is installed at the version pinned below when missing (from
# the Go module proxy, checked against the checksum database; this machine
# reaches no other download site).
set -euo pipefail
cd "$(dirname "$0")"
export PATH="$PATH:/usr/local/go/bin"

HELM_VERSION=v3.22.0
tools="${IMAGE_TOOLS:-$HOME/.cache/wayfarer-tools}"
helm="$tools/helm-$HELM_VERSION"
if [ ! -x "$helm" ]; then
  mkdir -p "$tools"
  bin="$(mktemp -d)"
  GOBIN="$bin" go install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
  mv "$bin/helm" "$helm"
  rm -rf "$bin"
fi
"$helm" version --short

fail() { echo "helm chart: $*" >&2; exit 1; }
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

for values in "" wayfarer/ci/*.yaml; do
  args=()
  [ -n "$values" ] && args=(-f "$values")
  echo "== ${values:-default values}"
  "$helm" lint --strict wayfarer "${args[@]}"
  "$helm" template release wayfarer --namespace wayfarer "${args[@]}" >"$out/rendered.yaml"
  grep -c '^kind:' "$out/rendered.yaml" | sed 's/^/   objects rendered: /'
  for want in 'runAsNonRoot: true' 'readOnlyRootFilesystem: true' 'allowPrivilegeEscalation: false' '- ALL' \
    'METRICS_ADDR: ":9090"' 'path: /readyz' 'path: /healthz' 'startupProbe:' 'mountPath: /data'; do
    grep -qF -- "$want" "$out/rendered.yaml" || fail "rendered with ${values:-default values}: no '$want'"
  done
  grep -q 'preStop:' "$out/rendered.yaml" && fail "a preStop hook: the server drains itself"
  grace=$(awk '/terminationGracePeriodSeconds:/ {print $2}' "$out/rendered.yaml")
  drain=$(awk -F'"' '/SHUTDOWN_DRAIN:/ {print $2+0}' "$out/rendered.yaml")
  shutdown=$(awk -F'"' '/SHUTDOWN_GRACE:/ {print $2+0}' "$out/rendered.yaml")
  [ "$grace" -gt $((drain + shutdown)) ] || fail "terminationGracePeriodSeconds $grace is not above SHUTDOWN_DRAIN $drain + SHUTDOWN_GRACE $shutdown"
  # The public Services carry the API ports only.
  awk '/^kind: Service$/ {s=1} /^---/ {s=0} s && /name: release-wayfarer-(guide|property)$/ {p=1} p && /port: 9090/ {bad=1} /^---/ {p=0} END {exit bad}' \
    "$out/rendered.yaml" || fail "a public Service exposes the metrics port"
done

echo "== refusals"
refused() {
  local want="$1"; shift
  if "$helm" template release wayfarer "$@" >/dev/null 2>"$out/err"; then fail "rendered with $*; want an error naming $want"; fi
  grep -q "$want" "$out/err" || fail "rendered with $*: error $(cat "$out/err"); want one naming $want"
  echo "   $* → refused ($want)"
}
refused database.guideURL --set replicaCount=3
refused redis.url --set autoscaling.enabled=true --set database.guideURL=postgres://db/g --set database.propertyURL=postgres://db/p
refused ReadWriteOnce --set replicaCount=2 --set database.guideURL=postgres://db/g --set database.propertyURL=postgres://db/p --set redis.url=redis://r:6379/0
refused database.propertyURL --set database.guideURL=postgres://db/g
refused "postgres://" --set database.guideURL=mysql://db/g --set database.propertyURL=postgres://db/p
refused "at least 32 bytes" --set secrets.jwtSecret=short
echo "helm chart: ok"

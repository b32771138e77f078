#!/usr/bin/env bash
# Builds the server's container image with ko, without a Docker daemon, into
# a tarball (`docker load` / `crane push` take it), and checks it: it runs as
# the non-root user 65532, its entrypoint is the server, and the binary in
# it starts, with every file it writes on a volume (/data), and answers
# /readyz.
#
#   deploy/image.sh OUT.tar              on .ko.yaml's base (distroless static,
#                                        pulled from its registry)
#   deploy/image.sh --local-base OUT.tar on a stand-in for it made here from
#                                        this machine's CA certificates, for a
#                                        machine that reaches no container
#                                        registry (CI)
#
# To publish: KO_DOCKER_REPO=registry.example.com/wayfarer ko build --bare \
#   --image-user 65532:65532 ./cmd/server   (pushes every platform of .ko.yaml)
#
# Needs Go; ko and crane are installed at the versions pinned below when
# missing (from the Go module proxy, checked against the checksum database).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"

KO_VERSION=v0.19.1
CRANE_VERSION=v0.22.1

local_base=""
if [ "${1:-}" = "--local-base" ]; then local_base=1; shift; fi
out="${1:?usage: deploy/image.sh [--local-base] OUT.tar}"
out="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"

log() { printf 'image: %s\n' "$*"; }

work="$(mktemp -d /tmp/image.XXXXXX)"
registry_pid=""
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
  [ -n "$registry_pid" ] && kill "$registry_pid" 2>/dev/null && wait "$registry_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

tools="${IMAGE_TOOLS:-$HOME/.cache/wayfarer-tools}"
mkdir -p "$tools"
[ -x "$tools/ko-$KO_VERSION" ] || { GOBIN="$work/bin" go install "github.com/google/ko@$KO_VERSION" && mv "$work/bin/ko" "$tools/ko-$KO_VERSION"; }
[ -x "$tools/crane-$CRANE_VERSION" ] || { GOBIN="$work/bin" go install "github.com/google/go-containerregistry/cmd/crane@$CRANE_VERSION" && mv "$work/bin/crane" "$tools/crane-$CRANE_VERSION"; }
ko="$tools/ko-$KO_VERSION" crane="$tools/crane-$CRANE_VERSION"

# A registry of our own on loopback: it serves the stand-in base to ko and
# takes the built image for the checks below.
free_port() { while :; do p=$((10000 + RANDOM % 20000)); ss -Htan "sport = :$p" | grep -q . || { echo "$p"; return; }; done; }
reg="127.0.0.1:$(free_port)"
"$crane" registry serve --address "$reg" >"$work/registry.log" 2>&1 &
registry_pid=$!
for _ in $(seq 1 50); do curl -fsS -o /dev/null "http://$reg/v2/" 2>/dev/null && break; sleep 0.1; done

platform=()
if [ -n "$local_base" ]; then
  # What distroless static:nonroot holds that the server uses: CA
  # certificates (S3, identity providers, webhooks, push, AI), the users
  # root and nonroot, and a writable /tmp. Time zones are built into the
  # binary (time/tzdata).
  log "making a stand-in base image (distroless static layout, this machine's CA certificates)"
  root="$work/base"
  mkdir -p "$root/etc/ssl/certs" "$root/tmp" "$root/home/nonroot"
  cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$root/etc/passwd"
  printf 'root:x:0:\nnonroot:x:65532:\n' >"$root/etc/group"
  chmod 1777 "$root/tmp"
  tar --numeric-owner --owner=0 --group=0 --mtime=@0 -C "$root" -cf "$work/base.tar" etc tmp home
  "$crane" append --insecure --oci-empty-base -f "$work/base.tar" -t "$reg/base:raw" >/dev/null 2>&1
  "$crane" mutate --insecure "$reg/base:raw" --user 65532:65532 -t "$reg/base:static" >/dev/null 2>&1
  export KO_DEFAULTBASEIMAGE="$reg/base:static"
  platform=(--platform=linux/amd64)
fi

log "building with ko $KO_VERSION (CGO_ENABLED=0)"
KO_DOCKER_REPO="$reg/wayfarer/server" GOFLAGS=-buildvcs=false "$ko" build --bare --push=false --tarball "$out" \
  --image-user 65532:65532 --sbom=none "${platform[@]}" --insecure-registry ./cmd/server >"$work/ko.out" 2>"$work/ko.log" || {
  cat "$work/ko.log" >&2; exit 1; }

log "checking $out"
"$crane" push --insecure "$out" "$reg/check:latest" >/dev/null 2>&1
config="$("$crane" config --insecure "$reg/check:latest")"
grep -q '"User":"65532:65532"' <<<"$config" || { echo "image: not run as 65532:65532: $config" >&2; exit 1; }
grep -q '"Entrypoint":\["/ko-app/server"\]' <<<"$config" || { echo "image: entrypoint is not /ko-app/server: $config" >&2; exit 1; }
mkdir -p "$work/fs"
"$crane" export --insecure "$reg/check:latest" - | tar -x -C "$work/fs" --wildcards "*ko-app/server" 2>/dev/null
if command -v file >/dev/null && ! file -L "$work/fs/ko-app/server" | grep -q 'statically linked'; then
  echo "image: the server binary is not statically linked: $(file -L "$work/fs/ko-app/server")" >&2; exit 1
fi
# The binary from the image, run as the chart runs it: settings from the
# environment, its files under /data (here a temporary folder).
data="$work/data"; mkdir -p "$data"
as_nonroot=()
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
  # As the image's user, who owns nothing but the volume.
  chown 65532:65532 "$data"; chmod 755 "$work" "$work/fs" "$work/fs/ko-app"
  as_nonroot=(setpriv --reuid=65532 --regid=65532 --clear-groups)
fi
gport=$(free_port) pport=$(free_port) mport=$(free_port)
GUIDE_ADDR="127.0.0.1:$gport" PROPERTY_ADDR="127.0.0.1:$pport" METRICS_ADDR="127.0.0.1:$mport" \
GUIDE_DATABASE_URL="$data/guide.db" PROPERTY_DATABASE_URL="$data/property.db" AVATAR_DIR="$data/avatars" \
SAMPLE_DATA=off LOG_LEVEL=warn "${as_nonroot[@]}" "$work/fs/ko-app/server" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 120); do
  curl -fsS -o /dev/null "http://127.0.0.1:$gport/readyz" 2>/dev/null && curl -fsS -o /dev/null "http://127.0.0.1:$mport/metrics" 2>/dev/null && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.25
done
curl -fsS -o /dev/null "http://127.0.0.1:$gport/readyz" || { cat "$work/server.log" >&2; echo "image: the image's server did not become ready" >&2; exit 1; }
log "ok: $(du -h "$out" | cut -f1) $(basename "$out"), user 65532:65532, entrypoint /ko-app/server, static binary, ran as 65532 on SQLite under a volume"

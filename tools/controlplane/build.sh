#!/usr/bin/env bash
# Builds the pinned etcd and kube-apiserver into a per-machine cache folder, once per
# version, and prints that folder. envtest reads it as its BinaryAssetsDirectory.
#
# K8S_VERSION=v1.33.13 builds that kube-apiserver instead (make compat's minors),
# into a folder of its own, next to the same etcd: the pinned one's when it is
# built, otherwise etcd alone from this module.
set -euo pipefail
cd "$(dirname "$0")"
# This module is kept out of the checkout's go.work: k8s.io/kubernetes pins
# versions of the k8s.io modules that the workspace's would override.
export GOWORK=off

PINNED_K8S_VERSION=v1.37.2
K8S_VERSION=${K8S_VERSION:-$PINNED_K8S_VERSION}
ETCD_VERSION=v3.7.3
cache_root=${KUBESYNC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubesync}
folder() { echo "$cache_root/controlplane/k8s-${1}_etcd-${ETCD_VERSION}"; }
dir=$(folder "$K8S_VERSION")

if [[ -x "$dir/etcd" && -x "$dir/kube-apiserver" ]]; then
  echo "$dir"
  exit 0
fi
# --built: only say whether they are built (exit 1 if not), building nothing.
[[ "${1:-}" == --built ]] && exit 1
mkdir -p "$dir"
tmp=$(mktemp -d "$dir/.build.XXXXXX")
SECONDS=0
trap 'rm -rf "$tmp"' EXIT

export CGO_ENABLED=0
major=${K8S_VERSION#v}; major=${major%%.*}
minor=${K8S_VERSION#v*.}; minor=${minor%%.*}
pkg=k8s.io/component-base/version
ldflags="-s -w -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"

# record writes how long the build took into the folder's build.txt, so that a
# later run (make compat's report) can say what the cached binaries cost from
# cold: wall seconds, and the CPU seconds of the build's processes.
record() {
  local user sys
  # times is a builtin: in a command substitution it would report a subshell's
  # (empty) children, so it writes to a file from this shell.
  times >"$tmp/times"
  read -r user sys < <(sed -n 2p "$tmp/times" | awk '{ for (i = 1; i <= 2; i++) { split($i, t, "m"); s[i] = t[1] * 60 + t[2] } printf "%d %d\n", s[1], s[2] }')
  printf 'wall=%d user=%d system=%d cpus=%d date=%s\n' "$SECONDS" "$user" "$sys" "$(nproc)" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$tmp/build.txt"
}

if [[ "$K8S_VERSION" == "$PINNED_K8S_VERSION" ]]; then
  echo "building etcd $ETCD_VERSION and kube-apiserver $K8S_VERSION into $dir (several minutes from cold)" >&2
  # One go build for both: its scheduler fills the cores with one binary's packages
  # while the other's single-threaded steps run (etcd's link, kube-apiserver's
  # longest chains). The -X flags name a package etcd does not link: ignored there.
  # -s -w strip the symbols and DWARF from the binaries; -dwarf=false spares the
  # compiler making the DWARF in the first place, a fifth of the build's CPU.
  go build -gcflags=all=-dwarf=false -ldflags "$ldflags" -o "$tmp/" go.etcd.io/etcd/server/v3 k8s.io/kubernetes/cmd/kube-apiserver >&2
  mv "$tmp/server" "$tmp/etcd"
  record
  mv "$tmp/build.txt" "$tmp/etcd" "$tmp/kube-apiserver" "$dir/"
  echo "$dir"
  exit 0
fi

echo "building kube-apiserver $K8S_VERSION into $dir (several minutes from cold)" >&2
pinned=$(folder "$PINNED_K8S_VERSION")
if [[ -x "$pinned/etcd" ]]; then
  cp "$pinned/etcd" "$tmp/etcd"
else
  go build -gcflags=all=-dwarf=false -ldflags "-s -w" -o "$tmp/" go.etcd.io/etcd/server/v3 >&2
  mv "$tmp/server" "$tmp/etcd"
fi
# A module of its own requires only k8s.io/kubernetes, so that each version builds
# with the dependencies it was released with, and names the published release of
# each staging module k8s.io/kubernetes replaces with a local folder.
mod="$tmp/mod"
mkdir "$mod"
kmod=$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')
{
  echo "module kubesync.local/controlplane"
  # k8s.io/kubernetes's go and godebug lines, so the binary runs with the GODEBUG
  # defaults of its release.
  grep -E '^(go|godebug) ' "$kmod"
  echo "require k8s.io/kubernetes $K8S_VERSION"
  sed -n "s#^[[:space:]]*\(k8s.io/[^ ]*\) => ./staging/.*#replace \1 => \1 v0.${K8S_VERSION#v1.}#p" "$kmod"
} >"$mod/go.mod"
printf '//go:build tools\n\npackage controlplane\n\nimport _ "k8s.io/kubernetes/cmd/kube-apiserver"\n' >"$mod/tools.go"
(cd "$mod" && go mod tidy >&2 && go build -gcflags=all=-dwarf=false -ldflags "$ldflags" -o "$tmp/" k8s.io/kubernetes/cmd/kube-apiserver >&2)
record
mv "$tmp/build.txt" "$tmp/etcd" "$tmp/kube-apiserver" "$dir/"
echo "$dir"

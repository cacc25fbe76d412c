#!/usr/bin/env bash
# Builds the pinned etcd and kube-apiserver into a per-machine cache folder, once per
# version, and prints that folder. envtest reads it as its BinaryAssetsDirectory.
set -euo pipefail
cd "$(dirname "$0")"

K8S_VERSION=v1.37.2
ETCD_VERSION=v3.7.3
cache_root=${KUBESYNC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubesync}
dir="$cache_root/controlplane/k8s-${K8S_VERSION}_etcd-${ETCD_VERSION}"

if [[ -x "$dir/etcd" && -x "$dir/kube-apiserver" ]]; then
  echo "$dir"
  exit 0
fi
# --built: only say whether they are built (exit 1 if not), building nothing.
[[ "${1:-}" == --built ]] && exit 1
mkdir -p "$dir"
tmp=$(mktemp -d "$dir/.build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

export CGO_ENABLED=0
major=${K8S_VERSION#v}; major=${major%%.*}
minor=${K8S_VERSION#v*.}; minor=${minor%%.*}
pkg=k8s.io/component-base/version
ldflags="-s -w -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"

echo "building etcd $ETCD_VERSION and kube-apiserver $K8S_VERSION into $dir (several minutes from cold)" >&2
# One go build for both: its scheduler fills the cores with one binary's packages
# while the other's single-threaded steps run (etcd's link, kube-apiserver's
# longest chains). The -X flags name a package etcd does not link: ignored there.
# -s -w strip the symbols and DWARF from the binaries; -dwarf=false spares the
# compiler making the DWARF in the first place, a fifth of the build's CPU.
go build -gcflags=all=-dwarf=false -ldflags "$ldflags" -o "$tmp/" go.etcd.io/etcd/server/v3 k8s.io/kubernetes/cmd/kube-apiserver >&2
mv "$tmp/server" "$tmp/etcd"
mv "$tmp/etcd" "$tmp/kube-apiserver" "$dir/"
echo "$dir"

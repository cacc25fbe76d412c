#!/usr/bin/env bash
# The importer's check: what a program that imports kubesync inherits from it.
#
# Each folder of testdata is such a program's module, pinned at a k8s.io release
# kubesync supports (the oldest, v0.33, and the newest v0.36) and importing every
# public package. In a copy of it, required at this checkout (a replace), with
# the README's program (the ```go block after the README's marker line) as its
# main.go, go mod tidy must leave its k8s.io pins and its go line as they are,
# and its module graph (go list -m all) must hold none of what only kubesync's
# own programs need: controller-runtime, gonum, cobra, etcd's client. The
# program is then built with the race detector and run: it must reach InSync.
#
# It needs the modules of both releases in the module cache (downloaded once).
#
# Usage: tools/importer/check.sh [testdata folder...]   (default: all of them)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# The copies live outside the checkout, but a GOWORK of the caller's would still
# apply: each copy is a module on its own, as an importer's is.
export GOWORK=off

forbidden='^(sigs\.k8s\.io/controller-runtime|gonum\.org/|github\.com/spf13/cobra|go\.etcd\.io/etcd/client)'
marker='<!-- tools/importer/check.sh builds and runs this program -->'

# readme_program prints the ```go block that follows the marker line in README.md.
readme_program() {
  awk -v marker="$marker" '
    $0 == marker { found = 1; next }
    found == 1 && /^```go$/ { found = 2; next }
    found == 2 && /^```$/ { exit }
    found == 2 { print }
  ' "$root/README.md"
}

# pins prints the go line and the k8s.io api, apimachinery and client-go
# requirements of the module in the current folder, one a line.
pins() {
  go mod edit -print | awk '$1 == "go" { print "go", $2 } $1 ~ /^k8s\.io\/(api|apimachinery|client-go)$/ { print $1, $2 }' | sort
}

check() {
  local src=$1 name tmp want got bad out
  name=$(basename "$src")
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  cp "$src"/* "$tmp/"
  readme_program >"$tmp/main.go"
  [[ -s "$tmp/main.go" ]] || { echo "importer $name: README.md has no \`\`\`go block after the line $marker"; return 1; }
  cd "$tmp"
  want=$(pins)
  go mod edit -replace "github.com/kubesync/kubesync=$root"
  go mod tidy
  got=$(pins)
  if [[ "$got" != "$want" ]]; then
    echo "importer $name: go mod tidy moved its pins (kubesync raised what it requires):"
    diff <(echo "$want") <(echo "$got") || true
    return 1
  fi
  if bad=$(go list -m all | grep -E "$forbidden"); then
    echo "importer $name: its module graph holds what only kubesync's programs need:"
    echo "$bad"
    return 1
  fi
  go build -race -o "$tmp/importer" .
  if ! out=$(timeout 120 "$tmp/importer" 2>&1) || [[ "$out" != *"in sync"* ]]; then
    echo "importer $name: the README's program did not reach InSync:"
    echo "$out"
    return 1
  fi
  echo "importer $name: pins, go line and module graph kept; the README's program reached InSync"
}

dirs=("$@")
[[ ${#dirs[@]} -gt 0 ]] || dirs=("$here"/testdata/*/)
rc=0
for d in "${dirs[@]}"; do
  (check "${d%/}") || rc=1
done
exit $rc

#!/usr/bin/env bash
# The API compatibility check of make lint: the library's exported API against
# api/kubesync.api, the API as of the last release (golang.org/x/exp's apidiff,
# module mode). An incompatible change fails the check unless CHANGELOG.md's
# "## Unreleased" section names its identifier (e.g. `Syncer.Stop` for
# (*Syncer).Stop, `Timing.Backoff` for a field, the package's folder for a
# package), as a word: that is where an importer learns what to do. Packages
# under internal/ and examples/ are not API and are left out.
#
# Usage: tools/api/check.sh      check
#        tools/api/check.sh -w   record the current API in api/kubesync.api (make api)
set -euo pipefail
cd "$(dirname "$0")/../.."
# The library's module alone, as an importer builds it (k8s.io v0.33), so that
# the recorded types do not depend on what the workspace's other modules select.
export GOWORK=off
apidiff=golang.org/x/exp/cmd/apidiff@v0.0.0-20260410095643-746e56fc9e2f
module=github.com/kubesync/kubesync
recorded=api/kubesync.api

if [[ "${1:-}" == -w ]]; then
  go run "$apidiff" -m -w "$recorded" "$module"
  echo "recorded the exported API of $module in $recorded"
  exit 0
fi

# apidiff says on stderr which internal packages it leaves out: not news.
report=$(go run "$apidiff" -m -incompatible "$recorded" "$module" 2> >(grep -v '^Ignoring internal package' >&2))
unreleased=$(awk '/^## / { in_section = ($0 == "## Unreleased") ; next } in_section' CHANGELOG.md)

# ident turns one line of the report into the identifier CHANGELOG.md must name,
# or nothing for a package that is not API.
ident() {
  local line=${1#- } name
  name=${line%%: *}
  case "$name" in
    "package $module/"*) name=${name#"package $module/"} ;;
    "package "*) name=${name#package } ;;
    ./*) name=${name#./*.} ;;
  esac
  case "${line%%: *}" in
    "package $module/internal/"* | "package $module/examples/"* | ./internal/* | ./examples/*) return 0 ;;
  esac
  name=${name//\(\*/}
  name=${name//\)/}
  echo "$name"
}

missing=()
while IFS= read -r line; do
  [[ -n "$line" ]] || continue
  id=$(ident "$line")
  [[ -n "$id" ]] || continue
  grep -qwF -- "$id" <<<"$unreleased" || missing+=("$line (name \`$id\`)")
done <<<"$report"

if [[ ${#missing[@]} -gt 0 ]]; then
  echo "incompatible API changes against $recorded that CHANGELOG.md's Unreleased section does not name:"
  printf '  %s\n' "${missing[@]}"
  echo "add a bullet for each to CHANGELOG.md's \"## Unreleased\" section (what an importer must do), or undo the change"
  exit 1
fi
echo "API check: no incompatible change against $recorded that CHANGELOG.md's Unreleased section does not name"

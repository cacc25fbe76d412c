// A program that imports kubesync and keeps the newest v0.36 k8s.io release, the
// minor below the one kubesync's own programs use. tools/importer/check.sh tidies
// it against the checkout and fails if a pin below or the go line moves.
module example.com/importer

go 1.26.0

require (
	github.com/kubesync/kubesync v0.6.0
	k8s.io/api v0.36.6
	k8s.io/apimachinery v0.36.6
	k8s.io/client-go v0.36.6
)

// A program that imports kubesync and keeps the oldest k8s.io release kubesync
// supports. tools/importer/check.sh tidies it against the checkout and fails if
// a pin below or the go line moves.
module example.com/importer

go 1.24.0

require (
	github.com/kubesync/kubesync v0.6.0
	k8s.io/api v0.33.0
	k8s.io/apimachinery v0.33.0
	k8s.io/client-go v0.33.0
)

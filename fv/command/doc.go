// Package command holds the fv specs of the kubesync command, run as a user
// would run it: against a real control plane with --kubeconfig, with --local (a
// control plane it starts itself), its metrics and its errors. It is a package of
// its own so that `go test ./...` runs its specs beside the other fv packages'.
package command

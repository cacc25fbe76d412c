// Package cli is the kubesync command: its cobra commands (watch, rbac, sets,
// version), their flags, and how a watch runs against a cluster. Run executes the
// command with given arguments and streams and returns the process exit code, so
// that tests run it in-process.
//
// Exit codes: 0 on success and when a watch is interrupted, 1 for a runtime error
// (unreadable kubeconfig, unreachable apiserver, output that cannot be written),
// 2 for a usage error (unknown command, flag, set or type). Either way the error
// is one line on stderr, without usage text.
package cli

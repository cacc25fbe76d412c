// Command kubesync runs a watcher set against a Kubernetes cluster and prints the
// stream that kubesync's syncer reports.
//
// Usage:
//
//	kubesync watch SET [--kubeconfig FILE] [--context NAME] [-n NAMESPACE]
//	                   [--types a,b] [-o json|table] [--values]
//	                   [--metrics-addr ADDR] [--connect-timeout 30s] [--local]
//	kubesync rbac SET [--types a,b] [--name NAME]
//	kubesync sets
//	kubesync version
//
// watch prints one JSON object per line: an update
// {"type":"New","key":"Pod/default/web","kind":"Pod","namespace":"default","name":"web","revision":"1234"},
// a status change {"status":"InSync"}, a type that cannot be synced
// {"syncFailed":"pods","reason":"forbidden","error":"…"} or an object that failed
// conversion {"parseFailed":"pods",…}. With -o table it prints a summary instead.
// While the first sync runs and stderr is a terminal, a progress line shows each
// type's object count and state.
//
// Exit codes: 0 on success or when a watch is interrupted, 1 for runtime errors,
// 2 for usage errors. Build with -ldflags "-X main.version=VERSION" to set the
// version that "kubesync version" prints.
package main

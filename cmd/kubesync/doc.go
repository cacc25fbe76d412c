// Command kubesync runs a watcher set against a Kubernetes cluster and prints the
// stream that kubesync's syncer reports.
//
// Usage:
//
//	kubesync watch SET [--kubeconfig FILE] [--context NAME] [-n NAMESPACE]
//	                   [--types a,b] [-o json|table] [--values]
//	                   [--metrics-addr ADDR] [--connect-timeout 30s]
//	                   [--log-level error|warn|info|debug]
//	                   [--local [--demo-changes RATE]]
//	kubesync rbac SET [--types a,b] [--name NAME]
//	kubesync sets
//	kubesync version
//	kubesync completion bash|zsh|fish|powershell
//
// watch prints one JSON object per line: an update
// {"type":"New","key":"Pod/default/web","kind":"Pod","namespace":"default","name":"web","revision":"1234","uid":"…"},
// a status change {"status":"InSync","types":17,"typesInSync":2,"failing":{"forbidden":15}},
// a type that cannot be synced {"syncFailed":"pods","reason":"forbidden","error":"…"}
// or that recovered {"syncRecovered":"pods"}, or an object that failed
// conversion {"parseFailed":"pods",…}. With -o table it prints a summary instead.
//
// --local starts an etcd and kube-apiserver of its own, with sample objects,
// prints the path of an admin kubeconfig for them, and stops them when it ends,
// however it ends (on Linux they die with it even when it is killed).
// --demo-changes RATE then creates, updates and deletes sample objects.
// While the first sync runs and stderr is a terminal, a progress line shows each
// type's object count and state.
//
// Exit codes: 0 on success, when a watch is interrupted (SIGINT, SIGTERM,
// SIGHUP) or when the reader of its output goes away (`| head`); 1 for runtime
// errors (an unreadable kubeconfig, no answer from the apiserver or every type
// refused within --connect-timeout, an untrusted certificate, a failed write);
// 2 for usage errors. Build with -ldflags "-X main.version=VERSION" to set the
// version that "kubesync version" prints.
package main

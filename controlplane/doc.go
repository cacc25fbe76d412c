// Package controlplane runs a real etcd and kube-apiserver on loopback for tests,
// as controller-runtime's envtest does, and puts a fault proxy in front of the
// apiserver to take it away and back. It is what kubesync's own specs and
// `kubesync watch --local` start their clusters with, and it needs no test
// framework: plain `go test` will do (see the package's Example).
//
// A ControlPlane (see Start) owns the processes and offers:
//   - the admin's rest.Config, clientset and kubeconfig file (Config, Clientset,
//     AdminKubeconfig, WriteKubeconfig), never rate-limited on the client side;
//   - users of limited rights, each with a client certificate and a ClusterRole
//     of the caller's rules (AddUser, AddUserWithRole), whose rights change
//     while it runs (GrantUserAccess, RevokeUserAccess);
//   - CRD install and removal that wait until the API is served or gone
//     (WithCRDs, InstallCRDs, DeleteCRD);
//   - the apiserver stopped, killed and started again on the same etcd, the same
//     address and the same certificates, so that every rest.Config stays valid
//     (StopAPIServer, KillAPIServer, StartAPIServer, RestartAPIServer);
//   - etcd compaction (Compact), which with WithWatchCache(false) makes a watch
//     that restarts from an older revision fail with 410 Expired;
//   - namespace deletion that does the namespace controller's job, since no
//     controller manager runs (DeleteNamespace);
//   - the apiserver's own Prometheus metrics (Metrics), to count the LIST and
//     WATCH requests a client really made, and to read its feature gates;
//   - older kube-apiserver minors (make compat): a feature gate the binary does
//     not know is left out where it is turned off (FeatureGates lists those it
//     knows);
//   - more apiservers on the same etcd and certificates (AddAPIServer), for a
//     highly available control plane behind a load balancer.
//
// A Proxy (NewProxy) stands between a client and the apiserver. Its Config is
// what the code under test is given. It takes the whole apiserver away and
// back three ways (RefuseConnections: refused, as a stopped apiserver;
// StallAll: held silent, as behind a partition; CutAll: every connection cut),
// injects faults per resource (503s, 410s, cuts, stalls, a slow link), and
// counts the requests it sees.
//
// The binaries come from AssetsDir: $KUBEBUILDER_ASSETS when set; in a kubesync
// checkout, the pinned build of tools/controlplane/build.sh (`make
// controlplane`); elsewhere, the folder that script fills,
// ~/.cache/kubesync/controlplane. Failing those, Start says in one line what to
// run.
//
// The package starts the processes itself, not through envtest: importing it
// registers no flag and creates no file, and on Linux etcd and kube-apiserver die
// with the process that started them, whatever ends it. Their temporary folder
// is removed by Stop or, after a SIGKILL, by the next Start.
package controlplane

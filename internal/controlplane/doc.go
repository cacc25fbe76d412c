// Package controlplane runs a real etcd and kube-apiserver on loopback, from the
// binaries that tools/controlplane pins. The fv specs and `kubesync watch --local`
// start their clusters with it. It starts the processes itself, not through
// envtest, whose mere linking creates a folder under the user's cache and whose
// processes outlive a killed owner: here, on Linux, they die with it, and their
// temporary folder is removed by Stop or, after a SIGKILL, by the next Start.
//
// A ControlPlane (see Start) owns the processes and offers:
//   - admin and per-user rest.Configs (Config, AddUser, AddUserWithRole), never
//     rate-limited on the client side;
//   - apiserver restarts on the same etcd and the same address (RestartAPIServer,
//     StopAPIServer, StartAPIServer, KillAPIServer);
//   - more apiservers on the same etcd and certificates, each restarted or
//     killed on its own (AddAPIServer, APIServer), for a highly available
//     control plane behind a load balancer;
//   - etcd compaction (Compact), which with WithWatchCache(false) makes a watch
//     that restarts from an older revision fail with 410 Expired;
//   - CRD install and removal that wait until the API is served or gone
//     (InstallCRDs, DeleteCRD);
//   - namespace deletion that does the namespace controller's job, since no
//     controller manager runs (DeleteNamespace);
//   - the apiserver's own Prometheus metrics (Metrics), to count the LIST and
//     WATCH requests a client really made, and to read its feature gates;
//   - older kube-apiserver minors (make compat): a feature gate the binary does
//     not know is left out where it is turned off (FeatureGates lists those it
//     knows).
//
// The binaries come from AssetsDir: $KUBEBUILDER_ASSETS when set, otherwise the
// pinned build of tools/controlplane/build.sh.
package controlplane

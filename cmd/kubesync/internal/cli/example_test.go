package cli_test

import (
	"context"
	"os"

	"github.com/kubesync/kubesync/cmd/kubesync/internal/cli"
)

func ExampleRun() {
	streams := cli.Streams{Out: os.Stdout, Err: os.Stdout}
	if code := cli.Run(context.Background(), []string{"rbac", "services", "--types", "services"}, streams); code != cli.ExitOK {
		panic(code)
	}
	if code := cli.Run(context.Background(), []string{"watch", "storage"}, streams); code != cli.ExitUsage {
		panic(code)
	}
	// Output:
	// apiVersion: rbac.authorization.k8s.io/v1
	// kind: ClusterRole
	// metadata:
	//   name: kubesync-services
	// rules:
	// - apiGroups:
	//   - ""
	//   resources:
	//   - services
	//   verbs:
	//   - get
	//   - list
	//   - watch
	// - apiGroups:
	//   - ""
	//   resourceNames:
	//   - kube-system
	//   resources:
	//   - namespaces
	//   verbs:
	//   - get
	// kubesync: unknown watcher set "storage" (known sets: dataplane, policy, routing, services)
}

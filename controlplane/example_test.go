package controlplane_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// arrivals is the consumer under test: it passes on the name of each new
// ConfigMap of namespace "demo".
type arrivals chan string

func (a arrivals) OnStatusUpdated(syncer.SyncStatus) {}

func (a arrivals) OnUpdates(ups []syncer.Update) {
	for _, u := range ups {
		if u.UpdateType == syncer.KVNew && u.Key.Namespace == "demo" {
			a <- u.Key.Name
		}
	}
}

// next waits for the next arrival, within a minute.
func (a arrivals) next() string {
	select {
	case name := <-a:
		return name
	case <-time.After(time.Minute):
		return "nothing within a minute"
	}
}

// A syncer runs against a real apiserver as a user of limited rights, through a
// proxy. The apiserver goes away and comes back three ways, then restarts, and
// the syncer sees what was written meanwhile each time.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cp, err := controlplane.Start(ctx) // controlplane.WithCRDs(...) would install CRDs
	if err != nil {
		log.Fatal(err)
	}
	defer func() { _ = cp.Stop() }()

	// The agent may read ConfigMaps, nothing more; the proxy forwards as the agent.
	agent, err := cp.AddUser(ctx, "agent", []rbacv1.PolicyRule{{
		APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"},
	}})
	if err != nil {
		log.Fatal(err)
	}
	proxy, err := controlplane.NewProxy(cp, controlplane.WithProxyUser(agent))
	if err != nil {
		log.Fatal(err)
	}
	defer func() { _ = proxy.Close() }()

	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	seen := make(arrivals, 10)
	s, err := syncer.New(proxy.Config(), []resources.Type{resources.ConfigMaps}, seen, syncer.WithLogger(quiet))
	if err != nil {
		log.Fatal(err)
	}
	s.Start(ctx)
	defer s.Wait()
	defer s.Stop()

	// The test writes as the admin, straight to the apiserver, and reads as the
	// agent through the proxy to show what the agent meets.
	admin, err := cp.Clientset()
	if err != nil {
		log.Fatal(err)
	}
	through, err := kubernetes.NewForConfig(proxy.Config())
	if err != nil {
		log.Fatal(err)
	}
	read := func(within time.Duration) error {
		ctx, cancel := context.WithTimeout(ctx, within)
		defer cancel()
		_, err := through.CoreV1().ConfigMaps("demo").List(ctx, metav1.ListOptions{})
		return err
	}
	create := func(name string) {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: name}}
		if _, err := admin.CoreV1().ConfigMaps("demo").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			log.Fatal(err)
		}
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "demo"}}
	if _, err := admin.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		log.Fatal(err)
	}
	create("first")
	fmt.Println(seen.next())

	// Refused, as a stopped apiserver: connections closed, new ones refused.
	must(proxy.RefuseConnections(true))
	fmt.Println("refused:", errors.Is(read(time.Minute), syscall.ECONNREFUSED))
	create("while-refused")
	must(proxy.RefuseConnections(false))
	fmt.Println(seen.next())

	// Held silent, as behind a partition: nothing goes through until it ends.
	proxy.StallAll(true)
	fmt.Println("silent:", errors.Is(read(time.Second), context.DeadlineExceeded))
	create("while-silent")
	proxy.StallAll(false)
	fmt.Println(seen.next())

	// Cut, as a broken link: every connection dropped.
	fmt.Println("cut:", proxy.CutAll() > 0) // the syncer's watch, at least
	create("after-cut")
	fmt.Println(seen.next())

	// Restarted on the same address and certificates: every rest.Config stays
	// valid, the admin's made before included.
	must(cp.RestartAPIServer(ctx))
	create("after-restart")
	fmt.Println(seen.next())

	// Killed, then started again.
	must(cp.KillAPIServer())
	must(cp.StartAPIServer(ctx))
	create("after-kill")
	fmt.Println(seen.next())
	// Output:
	// first
	// refused: true
	// while-refused
	// silent: true
	// while-silent
	// cut: true
	// after-cut
	// after-restart
	// after-kill
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}

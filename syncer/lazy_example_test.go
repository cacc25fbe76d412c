package syncer_test

import (
	"context"
	"fmt"
	"io"

	"github.com/sirupsen/logrus"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

// lazyReader decodes only the value of cm0; the others stay bytes. It passes
// every batch on to a Store.
type lazyReader struct {
	*snapshot.Store
	handed *int
}

func (r lazyReader) OnUpdates(ups []syncer.Update) {
	for _, u := range ups {
		*r.handed++
		if u.Key.Name != "cm0" {
			continue
		}
		obj, err := u.Value.(*resources.Raw).Object()
		if err != nil {
			panic(err)
		}
		fmt.Println("read", u.Key, obj.(*corev1.ConfigMap).Data["k"])
	}
	r.Store.OnUpdates(ups)
}

// With WithLazyValues, a built-in object arrives as a *resources.Raw, which a
// consumer decodes only if it needs the object; a snapshot.Store keeps the bytes
// and decodes on Get. Here the cluster is a small protobuf apiserver that serves
// two ConfigMaps.
func ExampleWithLazyValues() {
	_, srv := newConfigMapServer(2)
	defer srv.Close()
	quiet := logrus.New()
	quiet.SetOutput(io.Discard)

	store, handed := snapshot.NewStore(), 0
	s, err := syncer.New(srv.Config(), []resources.Type{resources.ConfigMaps}, lazyReader{store, &handed},
		syncer.WithLazyValues(), syncer.WithLogger(quiet))
	if err != nil {
		panic(err)
	}
	s.Start(context.Background())
	<-store.Synced()
	s.Stop()
	s.Wait()
	kv, _ := store.Get(resources.ConfigMaps.KeyFor("ns", "cm1"))
	fmt.Println("handed", handed, "values; Get", kv.Key, kv.Value.(*corev1.ConfigMap).Data["k"])
	// Output:
	// read ConfigMap/ns/cm0 v0
	// handed 2 values; Get ConfigMap/ns/cm1 v1
}

package syncer_test

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/sirupsen/logrus"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
)

// batches passes every batch on to a Store and hands the last one to a
// channel too, if the channel has room.
type batches struct {
	*snapshot.Store
	ch chan []syncer.Update
}

func (b batches) OnUpdates(ups []syncer.Update) {
	b.Store.OnUpdates(ups)
	select {
	case b.ch <- ups:
	default:
	}
}

// A type that has synced relists after a 410 by listing metadata only and
// fetching the objects that changed: here one ConfigMap of 100, changed while
// the syncer's watch was away, and its history compacted, as after an apiserver
// restart. The consumer gets one batch, as a full relist would give it.
func ExampleWithMetadataRelist() {
	api, srv := newConfigMapServer(100)
	defer srv.Close()
	quiet := logrus.New()
	quiet.SetOutput(io.Discard)

	b := batches{snapshot.NewStore(), make(chan []syncer.Update, 1)}
	s, err := syncer.New(srv.Config(), []resources.Type{resources.ConfigMaps}, b,
		syncer.WithMetadataRelist(syncer.DefaultMetadataRelist), syncer.WithLogger(quiet))
	if err != nil {
		panic(err)
	}
	s.Start(context.Background())
	defer func() { s.Stop(); s.Wait() }()
	<-b.Synced()
	for len(b.ch) > 0 {
		<-b.ch // the initial state: all delivered before the status
	}

	api.PutSilently(resources.ConfigMaps, configMap(7, "changed"))
	api.Compact(api.Revisions().Current())
	api.Resource(resources.ConfigMaps).EndWatches() // the watch comes back to 410
	for _, u := range <-b.ch {
		fmt.Println(u.UpdateType, u.Key, u.Value.(*corev1.ConfigMap).Data["k"])
	}
	gets := 0
	for _, p := range srv.Paths() {
		if strings.Contains(p, "/configmaps/") {
			gets++
		}
	}
	fmt.Println("metadata list pages:", srv.MetadataLists(), "GETs:", gets)
	// Output:
	// Updated ConfigMap/ns/cm7 changed
	// metadata list pages: 1 GETs: 1
}

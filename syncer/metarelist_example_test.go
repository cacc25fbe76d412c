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
	"github.com/kubesync/kubesync/syncertest"
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

// syncedConfigMaps serves n ConfigMaps and syncs them with opts; it returns
// once the initial state is delivered, and a func that stops it all.
func syncedConfigMaps(n int, opts ...syncer.Option) (*syncertest.API, *syncertest.Server, batches, func()) {
	api, srv := newConfigMapServer(n)
	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	b := batches{snapshot.NewStore(), make(chan []syncer.Update, 1)}
	s, err := syncer.New(srv.Config(), []resources.Type{resources.ConfigMaps}, b, append(opts, syncer.WithLogger(quiet))...)
	if err != nil {
		panic(err)
	}
	s.Start(context.Background())
	<-b.Synced()
	for len(b.ch) > 0 {
		<-b.ch // the initial state: all delivered before the status
	}
	return api, srv, b, func() { s.Stop(); s.Wait(); srv.Close() }
}

// restart compacts the API's history and ends the ConfigMaps' watches, which
// come back to 410, as after an apiserver restart.
func restart(api *syncertest.API) {
	api.Compact(api.Revisions().Current())
	api.Resource(resources.ConfigMaps).EndWatches()
}

// getsOf counts the GETs of single ConfigMaps that srv served.
func getsOf(srv *syncertest.Server) int {
	gets := 0
	for _, p := range srv.Paths() {
		if strings.Contains(p, "/configmaps/") {
			gets++
		}
	}
	return gets
}

// A type that has synced relists after a 410 by listing metadata only and
// fetching the objects that changed: here one ConfigMap of 100, changed while
// the syncer's watch was away, and its history compacted, as after an apiserver
// restart. The consumer gets one batch, as a full relist would give it.
func ExampleWithMetadataRelist() {
	api, srv, b, stop := syncedConfigMaps(100, syncer.WithMetadataRelist(syncer.MetadataRelist{MaxChanged: syncer.DefaultMetadataRelist}))
	defer stop()

	api.PutSilently(resources.ConfigMaps, configMap(7, "changed"))
	restart(api)
	for _, u := range <-b.ch {
		fmt.Println(u.UpdateType, u.Key, u.Value.(*corev1.ConfigMap).Data["k"])
	}
	fmt.Println("metadata list pages:", srv.MetadataLists(), "GETs:", getsOf(srv))
	// Output:
	// Updated ConfigMap/ns/cm7 changed
	// metadata list pages: 1 GETs: 1
}

// The GETs of a metadata-first relist run a few at a time, here 2; the
// consumer still gets one batch in the list's order, whichever GET answered
// first.
func ExampleWithMetadataRelist_gets() {
	api, srv, b, stop := syncedConfigMaps(100, syncer.WithMetadataRelist(syncer.MetadataRelist{MaxChanged: 0.05}), syncer.WithMetadataRelist(syncer.MetadataRelist{Gets: 2}))
	defer stop()

	for i := range 4 {
		api.PutSilently(resources.ConfigMaps, configMap(i, "changed"))
	}
	restart(api)
	for _, u := range <-b.ch {
		fmt.Println(u.UpdateType, u.Key, u.Value.(*corev1.ConfigMap).Data["k"])
	}
	fmt.Println("GETs:", getsOf(srv))
	// Output:
	// Updated ConfigMap/ns/cm0 changed
	// Updated ConfigMap/ns/cm1 changed
	// Updated ConfigMap/ns/cm2 changed
	// Updated ConfigMap/ns/cm3 changed
	// GETs: 4
}

package metrics_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/sirupsen/logrus"

	"github.com/kubesync/kubesync/metrics"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/snapshot"
	"github.com/kubesync/kubesync/syncer"
	"github.com/kubesync/kubesync/syncertest"
)

func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	types := []resources.Type{resources.Nodes, resources.Services}
	api := syncertest.NewAPI(types...) // against a cluster: a *rest.Config instead
	api.Resource(resources.Nodes).Set("a", "b")
	api.Refuse(resources.Services, syncertest.Forbidden(resources.Services))

	// The program's own registry, never the global one.
	reg := prometheus.NewRegistry()
	obs, err := metrics.New(reg)
	if err != nil {
		panic(err)
	}
	if err := metrics.RegisterRuntime(reg); err != nil {
		panic(err)
	}
	// Served as any Prometheus endpoint; a program would use http.ListenAndServe.
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer srv.Close()

	store := snapshot.NewStore()
	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	s, err := syncer.New(nil, types, store, api.Option(), syncer.WithObserver(obs), syncer.WithLogger(quiet))
	if err != nil {
		panic(err)
	}
	s.Start(ctx)
	defer func() { s.Stop(); s.Wait() }()
	select {
	case <-store.Synced():
	case <-ctx.Done():
		panic(ctx.Err())
	}

	resp, err := http.Get(srv.URL)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	for sc := bufio.NewScanner(resp.Body); sc.Scan(); {
		line := sc.Text()
		if strings.HasPrefix(line, "kubesync_keys{") || strings.HasPrefix(line, "kubesync_sync_failure{") {
			fmt.Println(line)
		}
	}
	// Output:
	// kubesync_keys{type="nodes"} 2
	// kubesync_keys{type="services"} 0
	// kubesync_sync_failure{failure="forbidden",type="nodes"} 0
	// kubesync_sync_failure{failure="forbidden",type="services"} 1
	// kubesync_sync_failure{failure="missing",type="nodes"} 0
	// kubesync_sync_failure{failure="missing",type="services"} 0
	// kubesync_sync_failure{failure="unauthorized",type="nodes"} 0
	// kubesync_sync_failure{failure="unauthorized",type="services"} 0
	// kubesync_sync_failure{failure="unreachable",type="nodes"} 0
	// kubesync_sync_failure{failure="unreachable",type="services"} 0
}

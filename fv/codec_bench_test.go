package fv

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/cbor"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/crds"
	"github.com/kubesync/kubesync/fv/orchestrate"
	"github.com/kubesync/kubesync/internal/samples"
	"github.com/kubesync/kubesync/internal/wire/meta"
	"github.com/kubesync/kubesync/resources"
)

// codecResult is one decode measured per object.
type codecResult struct {
	ns, bytes, allocs float64
}

// BenchmarkCRDCodecs lists the CRD workload's NetworkSets (a few labels and 10
// nets each; KUBESYNC_BENCH_NETWORKSETS of them, 20,000 by default) from a real
// apiserver with the CBORServingAndStorage gate on, once as JSON and once as CBOR,
// and decodes the list three ways: in full into unstructured objects (what
// the dynamic client does), metadata only (meta.DocItems and DocMeta: what the
// ledger needs), and metadata plus a full decode of 1% of the items (a relist
// where 1% changed). It prints the wire bytes, decode CPU and allocations per
// object side by side.
//
//	KUBEBUILDER_ASSETS=$(tools/controlplane/build.sh) KUBESYNC_BENCH_NETWORKSETS=20000 \
//	  go test -run '^$' -bench CRDCodecs -benchmem -benchtime 10x ./fv/
func BenchmarkCRDCodecs(b *testing.B) {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		b.Fatal("KUBEBUILDER_ASSETS must point at the control plane (tools/controlplane/build.sh)")
	}
	n := 20000
	if v := os.Getenv("KUBESYNC_BENCH_NETWORKSETS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 100 {
			b.Fatalf("KUBESYNC_BENCH_NETWORKSETS=%q: want a number of at least 100", v)
		}
	}
	ctx := context.Background()
	all, err := crds.All()
	if err != nil {
		b.Fatal(err)
	}
	cp, err := controlplane.Start(ctx, controlplane.WithCRDs(all...),
		controlplane.WithAPIServerFlag("feature-gates", "CBORServingAndStorage=true"))
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = cp.Stop() }()
	if err := createNetworkSets(ctx, cp.Config(), n); err != nil {
		b.Fatal(err)
	}
	pages := map[string][]byte{}
	for _, codec := range []string{"json", "cbor"} {
		if pages[codec], err = listAs(ctx, cp.Config(), "application/"+codec); err != nil {
			b.Fatal(err)
		}
	}
	decoders := map[string]func([]byte) error{
		"json/full":    decodeFull(unstructured.UnstructuredJSONScheme.Decode),
		"cbor/full":    decodeFull(cbor.NewSerializer(nil, nil).Decode),
		"json/meta":    decodeMeta(nil),
		"cbor/meta":    decodeMeta(nil),
		"json/meta+1%": decodeMeta(unstructured.UnstructuredJSONScheme.Decode),
		"cbor/meta+1%": decodeMeta(cbor.NewSerializer(nil, nil).Decode),
	}
	order := []string{"full", "meta", "meta+1%"}
	results := map[string]codecResult{}
	for _, way := range order {
		for _, codec := range []string{"json", "cbor"} {
			name := codec + "/" + way
			page, decode := pages[codec], decoders[name]
			b.Run(name, func(b *testing.B) {
				b.SetBytes(int64(len(page)))
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				t0 := time.Now()
				for b.Loop() {
					if err := decode(page); err != nil {
						b.Fatal(err)
					}
				}
				elapsed := time.Since(t0)
				runtime.ReadMemStats(&after)
				per := float64(b.N) * float64(n)
				r := codecResult{ns: float64(elapsed.Nanoseconds()) / per,
					bytes: float64(after.TotalAlloc-before.TotalAlloc) / per, allocs: float64(after.Mallocs-before.Mallocs) / per}
				results[name] = r
				b.ReportMetric(r.ns, "ns/obj")
				b.ReportMetric(r.allocs, "allocs/obj")
			})
		}
	}
	fmt.Printf("\nCRD workload: %d NetworkSets, one list, kube-apiserver with CBORServingAndStorage=true\n", n)
	fmt.Printf("wire bytes/object: json %.0f, cbor %.0f (cbor/json %.2f)\n",
		float64(len(pages["json"]))/float64(n), float64(len(pages["cbor"]))/float64(n), float64(len(pages["cbor"]))/float64(len(pages["json"])))
	fmt.Printf("%-9s | %12s %12s | %10s %10s | %9s %9s\n", "decode", "json ns/obj", "cbor ns/obj", "json B/obj", "cbor B/obj", "json allocs", "cbor allocs")
	for _, way := range order {
		j, c := results["json/"+way], results["cbor/"+way]
		fmt.Printf("%-9s | %12.0f %12.0f | %10.0f %10.0f | %9.1f %9.1f\n", way, j.ns, c.ns, j.bytes, c.bytes, j.allocs, c.allocs)
	}
}

// decodeFunc is a serializer's Decode.
type decodeFunc func([]byte, *schema.GroupVersionKind, kruntime.Object) (kruntime.Object, *schema.GroupVersionKind, error)

// decodeFull decodes a list page in full into unstructured objects.
func decodeFull(decode decodeFunc) func([]byte) error {
	return func(page []byte) error {
		_, _, err := decode(page, nil, &unstructured.UnstructuredList{})
		return err
	}
}

// decodeMeta reads a list page's items' metadata, and decodes one item in 100 in
// full with full (if not nil).
func decodeMeta(full decodeFunc) func([]byte) error {
	return func(page []byte) error {
		i := 0
		_, err := meta.DocItems(page, func(item []byte) error {
			if _, err := meta.DocMeta(item); err != nil {
				return err
			}
			i++
			if full == nil || i%100 != 0 {
				return nil
			}
			_, _, err := full(item, nil, &unstructured.Unstructured{})
			return err
		})
		return err
	}
}

// createNetworkSets creates n NetworkSets of the CRD workload, 1,000 per
// namespace, with a few workers.
func createNetworkSets(ctx context.Context, cfg *rest.Config, n int) error {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = -1, 0
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	const perNS, workers = 1000, 8
	for ns := 0; ns*perNS < n; ns++ {
		if err := samples.Create(ctx, dyn, resources.Namespaces, "", fmt.Sprintf("bench-crd-%03d", ns)); err != nil {
			return err
		}
	}
	return orchestrate.Parallel(ctx, n, workers, func(ctx context.Context, i int) error {
		ns := fmt.Sprintf("bench-crd-%03d", i/perNS)
		nets := make([]string, 10)
		for j := range nets {
			nets[j] = fmt.Sprintf("10.%d.%d.%d/32", i/65536%256, i/256%256, (i+j)%256)
		}
		labels := map[string]string{"app.kubernetes.io/name": "kubesync-bench", "app.kubernetes.io/instance": fmt.Sprintf("instance-%d", i%97)}
		obj := orchestrate.NetworkSet(ns, fmt.Sprintf("ns-%06d", i), labels, nets...)
		_, err := dyn.Resource(resources.NetworkSets.GVR).Namespace(ns).Create(ctx, obj, metav1.CreateOptions{})
		return err
	})
}

// listAs lists every NetworkSet in one request, asking for mediaType, and checks
// that the apiserver answered in it.
func listAs(ctx context.Context, cfg *rest.Config, mediaType string) ([]byte, error) {
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	gvr := resources.NetworkSets.GVR
	req, err := http.NewRequestWithContext(ctx, http.MethodGet,
		strings.TrimSuffix(cfg.Host, "/")+"/apis/"+gvr.Group+"/"+gvr.Version+"/"+gvr.Resource, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", mediaType)
	res, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = res.Body.Close() }()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), mediaType) {
		return nil, fmt.Errorf("list as %s: %s, Content-Type %q", mediaType, res.Status, res.Header.Get("Content-Type"))
	}
	return body, nil
}

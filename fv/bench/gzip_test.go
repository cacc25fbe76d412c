package bench

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// BenchmarkPodListGzip measures what gzip costs each side for a list of the pods
// workload, as the apiserver sends it (gzip level 1, its level): the server's
// compression, the client's un-gzipping, and for scale the client's protobuf
// decode of the same list. Bytes per list are reported as metrics.
//
//	go test -run '^$' -bench PodListGzip ./fv/bench/
func BenchmarkPodListGzip(b *testing.B) {
	list := &corev1.PodList{}
	for i := range 5000 {
		list.Items = append(list.Items, *newPod(fmt.Sprintf("bench-pod-%03d", i/1000), fmt.Sprintf("pod-%06d", i), i))
	}
	raw, err := list.Marshal()
	if err != nil {
		b.Fatal(err)
	}
	var zipped bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&zipped, gzip.BestSpeed)
	_, _ = zw.Write(raw)
	_ = zw.Close()
	report := func(b *testing.B) {
		b.ReportMetric(float64(len(raw)), "raw-bytes")
		b.ReportMetric(float64(zipped.Len()), "gzip-bytes")
	}
	b.Run("server-gzip", func(b *testing.B) {
		for b.Loop() {
			zw, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed)
			_, _ = zw.Write(raw)
			_ = zw.Close()
		}
		report(b)
	})
	b.Run("client-gunzip", func(b *testing.B) {
		for b.Loop() {
			zr, _ := gzip.NewReader(bytes.NewReader(zipped.Bytes()))
			_, _ = io.Copy(io.Discard, zr)
		}
		report(b)
	})
	b.Run("client-decode", func(b *testing.B) {
		for b.Loop() {
			var l corev1.PodList
			if err := l.Unmarshal(raw); err != nil {
				b.Fatal(err)
			}
		}
		report(b)
	})
}

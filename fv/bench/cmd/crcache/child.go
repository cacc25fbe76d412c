package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubesync/kubesync/crcache"
	"github.com/kubesync/kubesync/fv/bench"
	"github.com/kubesync/kubesync/internal/cputime"
)

// result is what one cache's process measured, printed as one JSON line.
type result struct {
	Cache   string  `json:"cache"`
	Pods    int     `json:"pods"`
	Synced  float64 `json:"synced_s"`  // from Start to the Pod informer synced
	Heap    uint64  `json:"heap"`      // HeapAlloc after GC, synced
	PeakRSS uint64  `json:"peak_rss"`  // VmHWM at the end
	GetCPU  float64 `json:"get_cpu_s"` // CPU per Get
	ListCPU float64 `json:"list_cpu_s"`
	ListN   int     `json:"list_n"` // pods per List (one namespace)
}

// caches are the contenders: controller-runtime's default cache, the same
// with managed fields stripped (the usual hand-written saving), and kubesync's.
var caches = map[string]func() cache.Options{
	"default":       func() cache.Options { return cache.Options{} },
	"default-strip": func() cache.Options { return cache.Options{DefaultTransform: cache.TransformStripManagedFields()} },
	"kubesync":      func() cache.Options { return crcache.Options(cache.Options{}) },
}

// child syncs one cache of every pod, measures it and prints the result.
func child(kubeconfig, name string, pods, perNS int) error {
	cfg, err := bench.LoadKubeconfig(kubeconfig)
	if err != nil {
		return err
	}
	c, err := cache.New(cfg, caches[name]())
	if err != nil {
		return fmt.Errorf("cache %s: %w", name, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	go func() { _ = c.Start(ctx) }()
	if _, err := c.GetInformer(ctx, &corev1.Pod{}); err != nil {
		return err
	}
	if !c.WaitForCacheSync(ctx) { // GetInformer waits only once the cache has started
		return fmt.Errorf("cache %s did not sync", name)
	}
	r := result{Cache: name, Pods: pods, Synced: time.Since(start).Seconds()}
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	r.Heap = ms.HeapAlloc
	if r.GetCPU, err = getCPU(ctx, c, pods, perNS); err != nil {
		return err
	}
	if r.ListCPU, r.ListN, err = listCPU(ctx, c); err != nil {
		return err
	}
	r.PeakRSS = peakRSS()
	return json.NewEncoder(os.Stdout).Encode(r)
}

// getCPU is the CPU of one Get, over 2,000 Gets of pods across namespaces.
func getCPU(ctx context.Context, c cache.Cache, pods, perNS int) (float64, error) {
	const n = 2000
	cpu0 := cputime.Process().Seconds()
	for i := 0; i < n; i++ {
		j := (i * 7919) % pods
		key := types.NamespacedName{Namespace: nsName(j / perNS), Name: podName(j)}
		var p corev1.Pod
		if err := c.Get(ctx, key, &p); err != nil {
			return 0, fmt.Errorf("get %v: %w", key, err)
		}
	}
	return (cputime.Process().Seconds() - cpu0) / n, nil
}

// listCPU is the CPU of one List of a namespace's pods, over 10 Lists.
func listCPU(ctx context.Context, c cache.Cache) (float64, int, error) {
	const n = 10
	cpu0, got := cputime.Process().Seconds(), 0
	for i := 0; i < n; i++ {
		var l corev1.PodList
		if err := c.List(ctx, &l, client.InNamespace(nsName(0))); err != nil {
			return 0, 0, err
		}
		got = len(l.Items)
	}
	return (cputime.Process().Seconds() - cpu0) / n, got, nil
}

// peakRSS is VmHWM, the process's peak resident set, in bytes.
func peakRSS() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

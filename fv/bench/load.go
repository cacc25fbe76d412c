package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kubesync/kubesync/fv/orchestrate"
)

// load creates the workload's namespaces and n objects, workers at a time.
func load(ctx context.Context, c loadClients, wl *workload, n, size, workers int, logf func(string, ...any)) error {
	for _, ns := range wl.namespaces(n) {
		_, err := c.cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating namespace %s: %w", ns, err)
		}
	}
	var done atomic.Int64
	return orchestrate.Parallel(ctx, n, workers, func(ctx context.Context, i int) error {
		ns, name := wl.placement(i)
		err := wl.create(ctx, c, wl.newObject(ns, name, i, size))
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating %s %s/%s: %w", wl.kind, ns, name, err)
		}
		if d := done.Add(1); d%int64(max(n/10, 1)) == 0 {
			logf("  %d/%d", d, n)
		}
		return nil
	})
}

// pickChanged returns the etcd keys of the fraction of the workload's objects that
// are changed before each relist: every k-th key in key order, counted from the
// last, so the last object of a list is always among them.
func pickChanged(ctx context.Context, etcd *clientv3.Client, wl *workload, fraction float64) ([]string, error) {
	prefix := wl.etcdPrefix + wl.nsPrefix
	resp, err := etcd.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithKeysOnly(), clientv3.WithSort(clientv3.SortByKey, clientv3.SortAscend))
	if err != nil {
		return nil, fmt.Errorf("listing %s in etcd: %w", prefix, err)
	}
	if len(resp.Kvs) == 0 {
		return nil, fmt.Errorf("no keys under %s in etcd", prefix)
	}
	step := 1
	if fraction > 0 && fraction < 1 {
		step = max(int(1/fraction+0.5), 1)
	}
	var keys []string
	for i := len(resp.Kvs) - 1; i >= 0; i -= step {
		keys = append(keys, string(resp.Kvs[i].Key))
	}
	sort.Strings(keys)
	return keys, nil
}

// markInEtcd sets MarkAnnotation=token on the objects at keys, writing etcd
// directly (the apiserver is down): the apiserver's storage encoding (protobuf
// for built-in kinds, JSON for custom resources) is decoded, annotated and
// encoded again.
func markInEtcd(ctx context.Context, etcd *clientv3.Client, wl *workload, keys []string, token string) error {
	ser := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	var wg sync.WaitGroup
	errs := make(chan error, len(keys))
	sem := make(chan struct{}, 16)
	for _, key := range keys {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := markOne(ctx, etcd, ser, wl, key, token); err != nil {
				errs <- fmt.Errorf("marking %s: %w", key, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	return errors.Join(all...)
}

func markOne(ctx context.Context, etcd *clientv3.Client, ser *protobuf.Serializer, wl *workload, key, token string) error {
	resp, err := etcd.Get(ctx, key)
	if err != nil {
		return err
	}
	if len(resp.Kvs) != 1 {
		return errors.New("not in etcd")
	}
	value := resp.Kvs[0].Value
	var obj runtime.Object
	if len(value) > 0 && value[0] == '{' {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(value); err != nil {
			return fmt.Errorf("decoding JSON: %w", err)
		}
		obj = u
	} else if obj, _, err = ser.Decode(value, nil, nil); err != nil {
		return fmt.Errorf("decoding: %w", err)
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	ann := m.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	ann[MarkAnnotation] = token
	m.SetAnnotations(ann)
	var buf bytes.Buffer
	if u, ok := obj.(*unstructured.Unstructured); ok {
		b, err := u.MarshalJSON()
		if err != nil {
			return fmt.Errorf("encoding JSON: %w", err)
		}
		buf.Write(b)
	} else {
		obj.GetObjectKind().SetGroupVersionKind(wl.gvk)
		if err := ser.Encode(obj, &buf); err != nil {
			return fmt.Errorf("encoding: %w", err)
		}
	}
	txn, err := etcd.Txn(ctx).
		If(clientv3.Compare(clientv3.ModRevision(key), "=", resp.Kvs[0].ModRevision)).
		Then(clientv3.OpPut(key, buf.String())).Commit()
	if err != nil {
		return err
	}
	if !txn.Succeeded {
		return errors.New("changed concurrently")
	}
	return nil
}

package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/fv/orchestrate"
)

// KubersOptions configure a run of the kube-rs-shaped benchmark.
type KubersOptions struct {
	Contenders []string
	Workers    int // concurrent writes while loading and churning
	// Exe is the benchmark binary, started as `Exe contender -kind K -kubeconfig F`.
	Exe     string
	LogDir  string
	Command string
	Log     func(string, ...any)
}

// KubersResult is one contender's phases.
type KubersResult struct {
	Contender string
	Phases    []Phase
}

// KubersReport is a run of the kube-rs-shaped benchmark.
type KubersReport struct {
	Session       orchestrate.Session
	Options       KubersOptions
	ServerVersion string
	Results       []KubersResult
}

// RunKubers starts a control plane and runs each contender through the three
// phases, on the same 10,000 ConfigMaps made anew for each.
func RunKubers(ctx context.Context, o KubersOptions) (*KubersReport, error) {
	rep := &KubersReport{Session: orchestrate.Begin(), Options: o}
	cl, err := orchestrate.Start(ctx, orchestrate.Config{CRDs: []*apiextensionsv1.CustomResourceDefinition{},
		LogPath: filepath.Join(o.LogDir, "controlplane.log")})
	if err != nil {
		return nil, err
	}
	defer func() { _ = cl.Stop() }()
	rep.ServerVersion = cl.ServerVersion
	px, err := controlplane.NewProxy(cl.ControlPlane)
	if err != nil {
		return nil, err
	}
	defer px.Close()
	b := bed{cl: cl, px: px, kubeconfig: filepath.Join(o.LogDir, "kubeconfig")}
	if err := controlplane.WriteKubeconfig(px.Config(), b.kubeconfig); err != nil {
		return nil, err
	}
	if b.etcd, err = clientv3.New(clientv3.Config{Endpoints: []string{cl.EtcdURL().String()}, DialTimeout: 10 * time.Second}); err != nil {
		return nil, fmt.Errorf("etcd client: %w", err)
	}
	defer b.etcd.Close()
	for _, kind := range o.Contenders {
		o.Log("%s: loading %d ConfigMaps", kind, KubersObjects)
		if err := loadKubers(ctx, cl.Kube, o.Workers); err != nil {
			return nil, err
		}
		res, err := runKubersOne(ctx, o, b, kind)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", kind, err)
		}
		for _, p := range res.Phases {
			o.Log("  %s: %s", p.Name, p.summary())
		}
		rep.Results = append(rep.Results, res)
	}
	rep.Session.End()
	return rep, nil
}

// loadKubers empties the benchmark's namespace, then creates its ConfigMaps, as
// kubectl's client-side apply would (its field manager).
func loadKubers(ctx context.Context, cs kubernetes.Interface, workers int) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: KubersNamespace}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	cms := cs.CoreV1().ConfigMaps(KubersNamespace)
	if err := cms.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		return fmt.Errorf("emptying %s: %w", KubersNamespace, err)
	}
	create := metav1.CreateOptions{FieldManager: "kubectl-client-side-apply"}
	return orchestrate.Parallel(ctx, KubersObjects, workers, func(ctx context.Context, i int) error {
		_, err := cms.Create(ctx, kubersConfigMap(i), create)
		return err
	})
}

// runKubersOne runs one contender process through the three phases.
func runKubersOne(ctx context.Context, o KubersOptions, b bed, kind string) (KubersResult, error) {
	res := KubersResult{Contender: kind}
	p, err := startContender(o.Exe, []string{"contender", "-kind", kind, "-kubeconfig", b.kubeconfig},
		filepath.Join(o.LogDir, "kubers-"+kind+".log"))
	if err != nil {
		return res, err
	}
	defer p.close()
	m, err := p.next(ctx, "phase", syncTimeout+time.Minute)
	if err != nil {
		return res, err
	}
	res.Phases = append(res.Phases, *m.Phase)
	token := fmt.Sprintf("kubers-%s-%d", kind, time.Now().UnixNano())
	if err := p.in.write(Command{Type: "churn", Token: token, Expected: KubersUpdates, Objects: m.Phase.Objects - KubersDeletes}); err != nil {
		return res, err
	}
	if _, err := p.next(ctx, "armed", time.Minute); err != nil {
		return res, err
	}
	if err := churnKubers(ctx, b.cl.Kube, o.Workers, token); err != nil {
		return res, err
	}
	if m, err = p.next(ctx, "phase", relistTimeout+time.Minute); err != nil {
		return res, err
	}
	res.Phases = append(res.Phases, *m.Phase)
	// The relist: one object changed while the watch is held, etcd compacted past
	// it, the watch expired: only a list brings it, and its arrival ends the phase.
	changed := []string{"/registry/configmaps/" + KubersNamespace + "/cm-0"}
	if m, err = triggerRelist(ctx, p, b, kubersWorkload(), changed, token+"-relist"); err != nil {
		return res, err
	}
	res.Phases = append(res.Phases, *m.Phase)
	return res, p.exit()
}

// churnKubers is kube-rs's steady state on the apiserver: KubersUpdates updates,
// cycling from the first object, by another field manager (kube-rs's second
// managed-fields entry), each marked with token; then KubersDeletes deletes from
// the middle.
func churnKubers(ctx context.Context, cs kubernetes.Interface, workers int, token string) error {
	cms := cs.CoreV1().ConfigMaps(KubersNamespace)
	patch := []byte(fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, MarkAnnotation, token))
	opts := metav1.PatchOptions{FieldManager: "kube-controller-manager"}
	err := orchestrate.Parallel(ctx, KubersUpdates, workers, func(ctx context.Context, i int) error {
		_, err := cms.Patch(ctx, fmt.Sprintf("cm-%d", i%KubersObjects), types.MergePatchType, patch, opts)
		return err
	})
	if err != nil {
		return fmt.Errorf("updating: %w", err)
	}
	return orchestrate.Parallel(ctx, KubersDeletes, workers, func(ctx context.Context, i int) error {
		err := cms.Delete(ctx, fmt.Sprintf("cm-%d", (KubersObjects/2+i)%KubersObjects), metav1.DeleteOptions{})
		if err != nil {
			return fmt.Errorf("deleting: %w", err)
		}
		return nil
	})
}

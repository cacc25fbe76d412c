package env

import (
	"context"
	"fmt"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/crds"
	"github.com/kubesync/kubesync/fv/orchestrate"
	"github.com/kubesync/kubesync/internal/samples"
	"github.com/kubesync/kubesync/resources"
)

// StartTimeout bounds a control plane's start.
const StartTimeout = 10 * time.Minute

// Cluster is one real control plane for a Describe: orchestrate's, with the
// helpers of a spec, which fail it on an error.
type Cluster struct{ *orchestrate.Cluster }

// StartCluster starts a control plane with the bundled CRDs, stopped when the
// calling container ends.
func StartCluster(opts ...controlplane.Option) *Cluster {
	return startCluster(orchestrate.Config{Options: opts})
}

// StartClusterWithout is StartCluster with every bundled CRD but those of
// missing: a type whose CRD was never installed, with no deletion to wait for.
func StartClusterWithout(missing ...resources.Type) *Cluster {
	all, err := crds.All()
	Expect(err).NotTo(HaveOccurred())
	for _, t := range missing {
		crd, err := crds.For(t)
		Expect(err).NotTo(HaveOccurred(), "every missing type has a bundled CRD")
		all = slices.DeleteFunc(all, func(c *apiextensionsv1.CustomResourceDefinition) bool { return c.Name == crd.Name })
	}
	return startCluster(orchestrate.Config{CRDs: all})
}

func startCluster(cfg orchestrate.Config) *Cluster {
	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	cl, err := orchestrate.Start(ctx, cfg)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(cl.Stop)
	return &Cluster{cl}
}

// Namespace creates a namespace for one spec's objects.
func (c *Cluster) Namespace(ctx context.Context, name string) string {
	c.Create(ctx, resources.Namespaces, "", name)
	return name
}

// Create makes objects of type t.
func (c *Cluster) Create(ctx context.Context, t resources.Type, ns string, names ...string) {
	Expect(samples.Create(ctx, c.Dyn, t, ns, names...)).To(Succeed())
}

// Touch updates an object, giving it a new revision.
func (c *Cluster) Touch(ctx context.Context, t resources.Type, ns, name string) {
	o, err := c.Resource(t, ns).Get(ctx, name, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	labels := o.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels["touched"] = fmt.Sprint(time.Now().UnixNano())
	o.SetLabels(labels)
	_, err = c.Resource(t, ns).Update(ctx, o, metav1.UpdateOptions{})
	Expect(err).NotTo(HaveOccurred())
}

// Remove deletes objects of type t.
func (c *Cluster) Remove(ctx context.Context, t resources.Type, ns string, names ...string) {
	for _, n := range names {
		Expect(c.Resource(t, ns).Delete(ctx, n, metav1.DeleteOptions{})).To(Succeed())
	}
}

// Resource is the dynamic client of type t, in namespace ns if t is namespaced.
func (c *Cluster) Resource(t resources.Type, ns string) dynamic.ResourceInterface {
	if t.Namespaced {
		return c.Dyn.Resource(t.GVR).Namespace(ns)
	}
	return c.Dyn.Resource(t.GVR)
}

// Seq is n object names: prefix-0000, prefix-0001...
func Seq(prefix string, n int) []string { return samples.Names(prefix, n) }

package consistency

import (
	"context"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/resources"
)

// Check lists every type afresh (metadata only) and compares the result with the
// mirror, key by key and revision by revision. It returns nil when they agree, or
// an error naming up to ten differences. Types must use the default conversion (one
// key per object). A type the server does not serve (404) must be empty in the
// mirror.
func Check(ctx context.Context, cfg *rest.Config, m *Mirror, types []resources.Type) error {
	client, err := metadata.NewForConfig(cfg)
	if err != nil {
		return err
	}
	want := map[resources.Key]string{}
	kinds := map[string]bool{}
	for _, t := range types {
		kinds[t.Kind] = true
		list, err := client.Resource(t.GVR).Namespace(t.Namespace).List(ctx, metav1.ListOptions{
			LabelSelector: t.LabelSelector, FieldSelector: t.FieldSelector,
		})
		if err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return fmt.Errorf("listing %s: %w", t.Name, err)
		}
		for _, o := range list.Items {
			want[t.KeyFor(o.Namespace, o.Name)] = o.ResourceVersion
		}
	}
	got := m.Snapshot()
	var diffs []string
	for k, rev := range want {
		switch g, ok := got[k]; {
		case !ok:
			diffs = append(diffs, "missing from mirror: "+k.String())
		case g != rev:
			diffs = append(diffs, fmt.Sprintf("%s: mirror at %s, server at %s", k, g, rev))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok && kinds[k.Kind] {
			diffs = append(diffs, "gone from server, still in mirror: "+k.String())
		}
	}
	if a := m.Anomalies(); len(a) > 0 {
		diffs = append(diffs, a...)
	}
	if len(diffs) == 0 {
		return nil
	}
	slices.Sort(diffs)
	n := len(diffs)
	if n > 10 {
		diffs = append(diffs[:10], "...")
	}
	return fmt.Errorf("%d differences: %s", n, strings.Join(diffs, "; "))
}

package crds

import (
	"embed"
	"fmt"
	"io/fs"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubesync/kubesync/resources"
)

//go:embed *.yaml
var files embed.FS

// All returns fresh copies of the bundled CustomResourceDefinitions, one per type
// in resources.Calico, in file name order. Their schemas are structural and keep
// unknown fields.
func All() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	paths, err := fs.Glob(files, "*.yaml")
	if err != nil {
		return nil, err
	}
	out := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(paths))
	for _, p := range paths {
		raw, err := files.ReadFile(p)
		if err != nil {
			return nil, err
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(raw, crd); err != nil {
			return nil, fmt.Errorf("bundled CRD %s: %w", p, err)
		}
		out = append(out, crd)
	}
	return out, nil
}

// For returns the bundled CRD that serves t, or an error if t is not bundled.
func For(t resources.Type) (*apiextensionsv1.CustomResourceDefinition, error) {
	all, err := All()
	if err != nil {
		return nil, err
	}
	for _, crd := range all {
		if crd.Spec.Group == t.GVR.Group && crd.Spec.Names.Plural == t.GVR.Resource {
			return crd, nil
		}
	}
	return nil, fmt.Errorf("no bundled CRD serves %s", t.Name)
}

package controlplane

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// helpAssets writes a kube-apiserver whose --help lists gates as 1.30 and 1.31
// print them, and whose --version names v1.31.14.
func helpAssets(t *testing.T) string {
	dir := t.TempDir()
	script := `#!/bin/sh
if [ "$1" = --version ]; then echo "Kubernetes v1.31.14"; exit 0; fi
cat <<'EOF'
      --feature-gates colonSeparatedMultimapStringString
                Options are:
                kube:AllAlpha=true|false (ALPHA - default=false)
                kube:WatchList=true|false (ALPHA - default=false)
                ConsistentListFromCache=true|false (BETA - default=true)
EOF
`
	if err := os.WriteFile(filepath.Join(dir, "kube-apiserver"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestFeatureGatesReadsTheHelp(t *testing.T) {
	got, err := FeatureGates(context.Background(), helpAssets(t))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"AllAlpha": false, "WatchList": false, "ConsistentListFromCache": true}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("FeatureGates = %v; want %v", got, want)
	}
}

func TestFitFeatureGatesDropsUnknownGatesTurnedOff(t *testing.T) {
	dir := helpAssets(t)
	o := defaultOptions()
	WithAPIServerFlag("feature-gates", "CBORServingAndStorage=false,WatchList=true")(&o)
	WithAPIServerFlag("feature-gates", "CBORServingAndStorage=false")(&o)
	WithAPIServerFlag("watch-cache", "false")(&o)
	if err := o.fitFeatureGates(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	want := []flag{{"feature-gates", []string{"WatchList=true"}}, {"watch-cache", []string{"false"}}}
	if !reflect.DeepEqual(o.flags, want) {
		t.Fatalf("flags = %v; want %v", o.flags, want)
	}

	o = defaultOptions()
	WithAPIServerFlag("feature-gates", "CBORServingAndStorage=true")(&o)
	err := o.fitFeatureGates(context.Background(), dir)
	if !errors.Is(err, ErrUnknownFeatureGate) {
		t.Fatalf("fitFeatureGates = %v; want ErrUnknownFeatureGate", err)
	}
	if want := "kube-apiserver v1.31.14 in " + dir + ": unknown feature gate CBORServingAndStorage"; err.Error()[:len(want)] != want {
		t.Fatalf("error %q; want it to begin %q", err, want)
	}
}

func TestFitFeatureGatesRunsNothingWithoutGates(t *testing.T) {
	o := defaultOptions()
	WithAPIServerFlag("watch-cache", "false")(&o)
	if err := o.fitFeatureGates(context.Background(), filepath.Join(t.TempDir(), "none")); err != nil {
		t.Fatal(err)
	}
}

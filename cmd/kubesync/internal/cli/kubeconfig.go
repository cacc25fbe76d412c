package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// loadKubeconfig builds the client configuration as kubectl does: the file given
// (or $KUBECONFIG, or ~/.kube/config, or the in-cluster configuration), with
// context overriding its current context. Its errors name the files read.
func loadKubeconfig(path, context string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = path
	overrides := &clientcmd.ConfigOverrides{CurrentContext: context}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
	if err == nil {
		return cfg, nil
	}
	files := strings.Join(rules.GetLoadingPrecedence(), ", ")
	switch {
	case path != "" && errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("kubeconfig %s does not exist", path)
	case clientcmd.IsEmptyConfig(err):
		return nil, fmt.Errorf("no cluster configured in kubeconfig %s: give --kubeconfig, set KUBECONFIG, or use --local", files)
	case files != "" && strings.Contains(err.Error(), files):
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	return nil, fmt.Errorf("kubeconfig %s: %w", files, err)
}

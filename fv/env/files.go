package env

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/controlplane"
)

// WriteKubeconfig writes cfg as a kubeconfig file in the spec's temporary folder.
func WriteKubeconfig(cfg *rest.Config) string {
	path := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
	Expect(controlplane.WriteKubeconfig(cfg, path)).To(Succeed())
	return path
}

// WriteFile writes content to a file in the spec's temporary folder.
func WriteFile(name, content string) string {
	path := filepath.Join(GinkgoT().TempDir(), name)
	Expect(os.WriteFile(path, []byte(content), 0o600)).To(Succeed())
	return path
}

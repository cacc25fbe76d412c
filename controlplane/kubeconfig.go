package controlplane

import (
	"fmt"
	"os"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// WriteKubeconfig writes cfg as a kubeconfig file at path, so that another process
// (the command, a benchmark contender) can connect as cfg does.
func WriteKubeconfig(cfg *rest.Config, path string) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["kubesync"] = &clientcmdapi.Cluster{
		Server:                   cfg.Host,
		CertificateAuthorityData: cfg.CAData,
		CertificateAuthority:     cfg.CAFile,
		InsecureSkipTLSVerify:    cfg.Insecure,
	}
	kc.AuthInfos["kubesync"] = &clientcmdapi.AuthInfo{
		ClientCertificateData: cfg.CertData,
		ClientKeyData:         cfg.KeyData,
		ClientCertificate:     cfg.CertFile,
		ClientKey:             cfg.KeyFile,
		Token:                 cfg.BearerToken,
	}
	kc.Contexts["kubesync"] = &clientcmdapi.Context{Cluster: "kubesync", AuthInfo: "kubesync"}
	kc.CurrentContext = "kubesync"
	return clientcmd.WriteToFile(*kc, path)
}

// AdminKubeconfig writes the admin's kubeconfig into the control plane's
// folder, readable by its owner only, and returns its path. Stop removes it
// with the folder.
func (cp *ControlPlane) AdminKubeconfig() (string, error) {
	path, err := cp.dir.sub("admin.kubeconfig", false)
	if err != nil {
		return "", err
	}
	if err := WriteKubeconfig(cp.Config(), path); err != nil {
		return "", fmt.Errorf("writing the admin kubeconfig: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		return "", fmt.Errorf("writing the admin kubeconfig: %w", err)
	}
	return path, nil
}

package controlplane

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/rest"
)

// portAttempts bounds the starts of a process whose port was taken between
// choosing it and the process binding it.
const portAttempts = 3

// pki holds the paths of the files the apiserver is given.
type pki struct {
	caCert, servingCert, servingKey, saKey, certDir string
}

// provision creates the certificate authority, the apiserver's serving
// certificate, the admin's client certificate and the service account key.
func (cp *ControlPlane) provision() error {
	ca, err := newAuthority()
	if err != nil {
		return err
	}
	servingCert, servingKey, err := ca.issue("kube-apiserver", nil, "127.0.0.1", "localhost")
	if err != nil {
		return err
	}
	adminCert, adminKey, err := ca.issue("admin", []string{"system:masters"})
	if err != nil {
		return err
	}
	saKey, err := newSigningKey()
	if err != nil {
		return err
	}
	cp.ca = ca
	files := []struct {
		path *string
		name string
		data []byte
	}{
		{&cp.files.caCert, "ca.crt", ca.certPEM},
		{&cp.files.servingCert, "apiserver.crt", servingCert},
		{&cp.files.servingKey, "apiserver.key", servingKey},
		{&cp.files.saKey, "sa.key", saKey},
	}
	for _, f := range files {
		if *f.path, err = cp.dir.write(f.name, f.data); err != nil {
			return err
		}
	}
	if cp.files.certDir, err = cp.dir.sub("apiserver", true); err != nil {
		return err
	}
	cp.admin = &rest.Config{TLSClientConfig: rest.TLSClientConfig{CAData: ca.certPEM, CertData: adminCert, KeyData: adminKey}}
	return nil
}

// startEtcd starts etcd and waits until it is healthy.
func (cp *ControlPlane) startEtcd(ctx context.Context) error {
	dataDir, err := cp.dir.sub("etcd", true)
	if err != nil {
		return err
	}
	return retryPorts(func() error {
		client, err := freePort()
		if err != nil {
			return err
		}
		peer, err := freePort()
		if err != nil {
			return err
		}
		at := &url.URL{Scheme: "http", Host: hostPort(client)}
		p, err := startProcess("etcd", filepath.Join(cp.assets, "etcd"), []string{
			"--data-dir=" + dataDir,
			"--listen-client-urls=" + at.String(),
			"--advertise-client-urls=" + at.String(),
			"--listen-peer-urls=http://" + hostPort(peer),
			// Nothing here needs to survive a power loss.
			"--unsafe-no-fsync=true",
		}, cp.o.out)
		if err != nil {
			return err
		}
		cp.etcd, cp.etcdAt = p, at
		hc := &http.Client{Timeout: time.Second}
		return waitProcess(ctx, p, cp.o.startTimeout, "etcd /health", func(ctx context.Context) (bool, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, at.String()+"/health", nil)
			if err != nil {
				return false, err
			}
			resp, err := hc.Do(req)
			if err != nil {
				return false, err
			}
			_ = resp.Body.Close()
			return resp.StatusCode == http.StatusOK, nil
		})
	}, func() { _ = cp.etcd.stop(cp.o.stopTimeout) })
}

// apiServerArgs are the flags of a kube-apiserver on port that reaches etcd
// at etcd: those it needs to serve on loopback with the control
// plane's certificates, then the options'.
func (cp *ControlPlane) apiServerArgs(port int, etcd *url.URL, certDir string) []string {
	base := []flag{
		{"etcd-servers", []string{etcd.String()}},
		{"bind-address", []string{"127.0.0.1"}},
		{"secure-port", []string{strconv.Itoa(port)}},
		{"cert-dir", []string{certDir}},
		{"tls-cert-file", []string{cp.files.servingCert}},
		{"tls-private-key-file", []string{cp.files.servingKey}},
		{"client-ca-file", []string{cp.files.caCert}},
		{"authorization-mode", []string{"RBAC"}},
		{"service-cluster-ip-range", []string{"10.0.0.0/24"}},
		{"allow-privileged", []string{"true"}},
		// No controller manager runs to create service account tokens.
		{"disable-admission-plugins", []string{"ServiceAccount"}},
		{"service-account-issuer", []string{"https://" + hostPort(port)}},
		{"service-account-key-file", []string{cp.files.saKey}},
		{"service-account-signing-key-file", []string{cp.files.saKey}},
	}
	return flagArgs(append(base, cp.o.apiServerFlags()...))
}

// flagArgs renders flags as arguments; a later flag of a name replaces an
// earlier one, in the earlier one's place.
func flagArgs(flags []flag) []string {
	var order []string
	last := map[string][]string{}
	for _, f := range flags {
		if _, ok := last[f.name]; !ok {
			order = append(order, f.name)
		}
		last[f.name] = f.values
	}
	var args []string
	for _, name := range order {
		for _, v := range last[name] {
			args = append(args, "--"+name+"="+v)
		}
	}
	return args
}

// retryPorts calls start until it succeeds, up to portAttempts times while
// it fails because a port was taken; undo runs after each such failure.
func retryPorts(start func() error, undo func()) error {
	var err error
	for range portAttempts {
		if err = start(); err == nil || !strings.Contains(err.Error(), "address already in use") {
			return err
		}
		undo()
	}
	return err
}

// waitProcess polls cond until it returns true, failing at once with the
// process's exit when the process ends meanwhile.
func waitProcess(ctx context.Context, p *process, timeout time.Duration, what string,
	cond func(context.Context) (bool, error)) error {
	return poll(ctx, timeout, what, func(ctx context.Context) (bool, error) {
		if err, done := p.exited(); done {
			return false, stopPolling{err}
		}
		return cond(ctx)
	})
}

// freePort returns a loopback port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("choosing a free port: %w", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	return port, nil
}

func hostPort(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }

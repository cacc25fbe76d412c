package controlplane

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFindModuleRoot(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	// A nested module of another name must be skipped.
	if err := os.WriteFile(filepath.Join(root, "a", "go.mod"), []byte("module example.com/other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("// comment\nmodule github.com/kubesync/kubesync\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := findModuleRoot(deep, modulePath)
	if err != nil || got != root {
		t.Fatalf("findModuleRoot = %q, %v; want %q", got, err, root)
	}
	if _, err := findModuleRoot(deep, "example.com/missing"); err == nil {
		t.Fatal("findModuleRoot found a module that is not there")
	}
}

func TestAssetsDirFromEnv(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(assetsEnv, dir)
	if _, err := AssetsDir(context.Background()); err == nil {
		t.Fatal("AssetsDir accepted a folder without binaries")
	}
	for _, name := range []string{"etcd", "kube-apiserver"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	got, err := AssetsDir(context.Background())
	if err != nil || got != dir {
		t.Fatalf("AssetsDir = %q, %v; want %q", got, err, dir)
	}
}

func TestAssetsDirOutsideTheRepository(t *testing.T) {
	t.Setenv(assetsEnv, "")
	cache := t.TempDir()
	t.Setenv("KUBESYNC_CACHE", cache)
	t.Chdir(t.TempDir())
	_, err := AssetsDir(context.Background())
	for _, want := range []string{"set KUBEBUILDER_ASSETS", "make controlplane", "tools/controlplane/build.sh",
		filepath.Join(cache, "controlplane")} {
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Fatalf("AssetsDir = %v; want one line naming %s", err, want)
		}
	}
	built := filepath.Join(cache, "controlplane", "k8s-v1.0.0_etcd-v3.0.0")
	if err := os.MkdirAll(built, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"etcd", "kube-apiserver"} {
		if err := os.WriteFile(filepath.Join(built, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	got, err := AssetsDir(context.Background())
	if err != nil || got != built {
		t.Fatalf("AssetsDir = %q, %v; want the folder build.sh filled, %q", got, err, built)
	}
}

package controlplane

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeAssets writes an etcd that prints a complaint and exits 3, and a
// kube-apiserver that is never reached.
func fakeAssets(t *testing.T) string {
	dir := t.TempDir()
	scripts := map[string]string{
		"etcd":           "#!/bin/sh\necho 'starting etcd'\necho 'cannot access data directory: permission denied' >&2\nexit 3\n",
		"kube-apiserver": "#!/bin/sh\nexit 1\n",
	}
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestFailedStartReportsTheExitAndCleansUp(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	_, err := Start(ctx, WithAssetsDir(fakeAssets(t)), WithProcessTimeouts(time.Minute, 0))
	var pe *ProcessError
	if !errors.As(err, &pe) {
		t.Fatalf("Start = %v; want a ProcessError", err)
	}
	if pe.Process != "etcd" || pe.Exit != "exit status 3" ||
		!strings.Contains(pe.Output, "cannot access data directory: permission denied") {
		t.Errorf("ProcessError = %+v", pe)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("Start took %s: it waited for the start timeout, not for the exit", d)
	}
	left, _ := os.ReadDir(tmp)
	if len(left) != 0 {
		t.Errorf("left in the temporary folder: %v", left)
	}
}

func TestSweepRemovesFoldersOfDeadOwnersOnly(t *testing.T) {
	tmp := t.TempDir()
	old := time.Now().Add(-2 * sweepAge)
	mk := func(name string) string {
		d := filepath.Join(tmp, workDirPrefix+name)
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		return d
	}
	dead, alive, young := mk("dead"), mk("alive"), mk("young")
	lock, ok, err := tryLock(filepath.Join(alive, ownerLock))
	if err != nil || !ok {
		t.Fatalf("tryLock = %v, %v", ok, err)
	}
	defer lock.Close()
	for _, d := range []string{dead, alive} {
		if err := os.Chtimes(d, old, old); err != nil {
			t.Fatal(err)
		}
	}
	sweepWorkDirs(tmp)
	for d, want := range map[string]bool{dead: false, alive: true, young: true} {
		if _, err := os.Stat(d); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", filepath.Base(d), err == nil, want)
		}
	}
}

func TestFlagArgsLaterReplacesEarlier(t *testing.T) {
	got := flagArgs([]flag{{"a", []string{"1"}}, {"b", []string{"2"}}, {"a", []string{"3", "4"}}})
	want := "--a=3 --a=4 --b=2"
	if strings.Join(got, " ") != want {
		t.Errorf("flagArgs = %v, want %s", got, want)
	}
}

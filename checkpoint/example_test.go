package checkpoint_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sirupsen/logrus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesync/kubesync/checkpoint"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// A first run finds no checkpoint, notes what its syncer reports and closes; the
// next run gets it back.
func Example() {
	dir, _ := os.MkdirTemp("", "kubesync")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "state", "agent.db")
	id := syncer.ClusterIdentity{Server: "https://10.0.0.1:6443", Cluster: "0c5b3c1e"}
	types := []resources.Type{resources.Pods}
	log := logrus.New()
	log.SetOutput(os.Stderr)
	log.SetLevel(logrus.ErrorLevel)

	s, snap, err := checkpoint.Open(path, id, types, checkpoint.WithLogger(log))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("first run resumes:", snap != nil)
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", ResourceVersion: "41"}}
	s.Record("pods", "default/web", "41", p)
	s.Revision("pods", "42")
	_ = s.Close()

	s, snap, _ = checkpoint.Open(path, id, types, checkpoint.WithLogger(log))
	defer s.Close()
	pods := snap.Types["pods"]
	fmt.Println("watch pods from", pods.Revision)
	for _, o := range pods.Objects {
		fmt.Println(o.ID, o.Revision, o.Object.(*corev1.Pod).Name)
	}
	// Output:
	// first run resumes: false
	// watch pods from 42
	// default/web 41 web
}

// New refuses, with one line, a path that another user could redirect or write;
// a Store it makes goes to syncer.WithCheckpoint, which opens it at Start.
func ExampleNew() {
	dir, _ := os.MkdirTemp("", "kubesync")
	defer os.RemoveAll(dir)
	_ = os.Symlink(filepath.Join(dir, "elsewhere"), filepath.Join(dir, "agent.db"))

	_, err := checkpoint.New(filepath.Join(dir, "agent.db"))
	fmt.Println(errors.Is(err, checkpoint.ErrRefused))

	cp, err := checkpoint.New(filepath.Join(dir, "state", "agent.db"))
	fmt.Println(err)
	_ = syncer.WithCheckpoint(cp) // an option of syncer.New
	// Output:
	// true
	// <nil>
}

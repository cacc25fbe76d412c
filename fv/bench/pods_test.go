package bench

import (
	"encoding/json"
	"testing"
)

// The pods workload's pods are about 3 KiB serialized, as a node agent's pods
// with their status are.
func TestPodSize(t *testing.T) {
	pod := newPod("bench-pod-001", "pod-001234", 1234)
	pb, err := pod.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("one pod: %d bytes of protobuf, %d bytes of JSON; %d labels, %d annotations", len(pb), len(js), len(pod.Labels), len(pod.Annotations))
	if len(pb) < 2500 || len(pb) > 3600 {
		t.Errorf("a pod is %d bytes of protobuf, want about 3 KiB", len(pb))
	}
	if n := len(pod.Labels); n < 6 || n > 10 {
		t.Errorf("%d labels, want 6 to 10", n)
	}
	if n := len(pod.Annotations); n < 6 || n > 10 {
		t.Errorf("%d annotations, want 6 to 10", n)
	}
}

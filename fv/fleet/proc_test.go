package fleet

import (
	"fmt"
	"os"
	"testing"

	"github.com/kubesync/kubesync/fv/orchestrate"
)

func TestReadStatOfSelf(t *testing.T) {
	comm, ppid, cpu, err := orchestrate.ReadStat(fmt.Sprintf("/proc/%d/stat", os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	if comm == "" || ppid != os.Getppid() || cpu < 0 {
		t.Errorf("comm %q ppid %d (want %d) cpu %v", comm, ppid, os.Getppid(), cpu)
	}
	if _, err := orchestrate.FindChild("no-such-process-name"); err == nil {
		t.Error("found a child that does not exist")
	}
}

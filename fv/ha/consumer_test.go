package ha

import (
	"testing"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

func TestConsumerFlagsARevisionThatGoesBack(t *testing.T) {
	a := resources.Key{Kind: "ConfigMap", Namespace: "ns", Name: "a"}
	b := resources.Key{Kind: "ConfigMap", Namespace: "ns", Name: "b"}
	up := func(k resources.Key, ut syncer.UpdateType, rev string) syncer.Update {
		return syncer.Update{KVPair: resources.KVPair{Key: k, Revision: rev}, UpdateType: ut}
	}
	c := NewConsumer()
	c.OnUpdates([]syncer.Update{up(a, syncer.KVNew, "10"), up(b, syncer.KVNew, "11")})
	c.OnUpdates([]syncer.Update{up(a, syncer.KVUpdated, "12")})
	// Deleted, then New again: any revision will do.
	c.OnUpdates([]syncer.Update{up(b, syncer.KVDeleted, "13"), up(b, syncer.KVNew, "9")})
	if got := c.Backwards(); len(got) != 0 {
		t.Fatalf("flagged increasing revisions: %v", got)
	}
	c.OnUpdates([]syncer.Update{up(a, syncer.KVUpdated, "11"), up(b, syncer.KVUpdated, "9"), up(a, syncer.KVUpdated, "x")})
	got := c.Backwards()
	want := []string{
		"Updated ConfigMap/ns/a at revision 11 after 12",
		"Updated ConfigMap/ns/b at revision 9 after 9",
		`Updated ConfigMap/ns/a at revision "x", not a number`,
	}
	if len(got) != len(want) {
		t.Fatalf("Backwards = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Backwards[%d] = %q, want %q", i, got[i], want[i])
		}
	}
	if rev, _ := c.Revision(a); rev != "x" {
		t.Errorf("the mirror holds %s at %q: it should still apply every update", a, rev)
	}
}

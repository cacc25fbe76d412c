package progress_test

import (
	"bytes"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/cmd/kubesync/internal/progress"
	"github.com/kubesync/kubesync/syncer"
)

var _ = Describe("Tracker", func() {
	It("keeps each type's count and status in the declared order", func() {
		t := progress.NewTracker("pods", "nodes")
		Expect(t.Contacted()).To(BeFalse())
		t.Keys("nodes", 3)
		t.StatusChanged("nodes", syncer.InSync)
		t.Keys("extra", 1)
		Expect(t.Contacted()).To(BeTrue())
		Expect(t.Snapshot()).To(Equal([]progress.TypeState{
			{Name: "pods"},
			{Name: "nodes", Keys: 3, Status: syncer.InSync},
			{Name: "extra", Keys: 1},
		}))
	})

	It("keeps the revision each type confirmed, and its age as of the snapshot", func() {
		t := progress.NewTracker("pods")
		at := time.Now().Add(-time.Hour)
		t.Confirmed("pods", "42", at)
		st := t.Snapshot()[0]
		Expect(st.Revision).To(Equal("42"))
		Expect(st.Confirmed).To(Equal(at))
		Expect(st.Age).To(BeNumerically(">=", time.Hour))
	})

	It("forgets a failure when the type lists again", func() {
		t := progress.NewTracker("pods")
		t.StatusChanged("pods", syncer.InSync)
		t.Failed("pods", "forbidden")
		t.StatusChanged("pods", syncer.InSync) // a retry that failed again
		Expect(t.Snapshot()[0].Failure).To(Equal("forbidden"))
		t.StatusChanged("pods", syncer.ResyncInProgress)
		Expect(t.Snapshot()[0].Failure).To(BeEmpty())
	})
})

var _ = Describe("Line", func() {
	It("shows each type's count and a mark of its state", func() {
		Expect(progress.Line([]progress.TypeState{
			{Name: "namespaces", Keys: 4, Status: syncer.InSync},
			{Name: "pods", Keys: 1200, Status: syncer.ResyncInProgress},
			{Name: "nodes"},
			{Name: "ippools", Status: syncer.InSync, Failure: "forbidden"},
		})).To(Equal("syncing 2/4 types, 1204 keys:  namespaces 4 ✓  pods 1200 …  nodes ?  ippools 0 ✗"))
	})
})

var _ = Describe("Console", func() {
	It("erases the status line before a message and redraws on Status", func() {
		var buf bytes.Buffer
		c := progress.NewConsole(&buf, true, func() int { return 12 })
		c.Status("syncing a long line")
		c.Printf("warning %d", 1)
		_, _ = fmt.Fprint(c.Writer(), "logged\n")
		c.Status("again")
		_, _ = c.Wrap(&buf).Write([]byte("{}\n"))
		c.Finish()
		c.Status("too late")
		Expect(buf.String()).To(Equal("\r\x1b[Ksyncing a …" + "\r\x1b[K" + "warning 1\n" + "logged\n" +
			"\r\x1b[Kagain" + "\r\x1b[K" + "{}\n"))
	})

	It("draws no status line when not live", func() {
		var buf bytes.Buffer
		c := progress.NewConsole(&buf, false, nil)
		Expect(c.Live()).To(BeFalse())
		c.Status("syncing")
		c.Printf("message\n")
		c.Finish()
		Expect(buf.String()).To(Equal("message\n"))
	})
})

var _ = Describe("Summary", func() {
	It("counts types in sync apart from failing ones", func() {
		s := progress.Summarize([]progress.TypeState{
			{Name: "a", Keys: 2, Status: syncer.InSync},
			{Name: "b", Status: syncer.InSync, Failure: "forbidden"},
			{Name: "c", Failure: "forbidden"},
			{Name: "d", Failure: "unauthorized"},
			{Name: "e", Status: syncer.ResyncInProgress},
		})
		Expect(s.String()).To(Equal("1 of 5 types, 2 keys; 2 forbidden, 1 unauthorized"))
		Expect(s.Healthy()).To(BeFalse())
		all := progress.Summarize([]progress.TypeState{{Name: "a", Keys: 1, Status: syncer.InSync}})
		Expect(all.String()).To(Equal("1 types, 1 keys"))
		Expect(all.Healthy()).To(BeTrue())
	})

	It("forgets a failure when the type recovers", func() {
		t := progress.NewTracker("pods")
		t.Failed("pods", "forbidden")
		t.Recovered("pods")
		Expect(t.Snapshot()[0].Failure).To(BeEmpty())
	})
})

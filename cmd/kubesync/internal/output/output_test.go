package output_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesync/kubesync/cmd/kubesync/internal/output"
	"github.com/kubesync/kubesync/cmd/kubesync/internal/progress"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

func pod(ns, name, rv string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv, UID: "u-" + "1"}}
}

func update(t syncer.UpdateType, key resources.Key, rev string, value any) syncer.Update {
	return syncer.Update{KVPair: resources.KVPair{Key: key, Revision: rev, Value: value, UID: "u-1"}, UpdateType: t}
}

func lines(s string) []output.Record {
	GinkgoHelper()
	var recs []output.Record
	for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		var r output.Record
		dec := json.NewDecoder(strings.NewReader(l))
		dec.DisallowUnknownFields()
		Expect(dec.Decode(&r)).To(Succeed(), l)
		recs = append(recs, r)
	}
	return recs
}

var forbidden = apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("no"))

var _ = Describe("JSON", func() {
	podKey := resources.Key{Kind: "Pod", Namespace: "default", Name: "web"}
	nodeKey := resources.Key{Kind: "Node", Name: "n1"}

	It("prints records that parse back, one per line", func() {
		var buf bytes.Buffer
		j := output.NewJSON(&buf)
		j.OnStatusUpdated(syncer.ResyncInProgress)
		j.OnUpdates([]syncer.Update{
			update(syncer.KVNew, podKey, "10", pod("default", "web", "10")),
			update(syncer.KVDeleted, nodeKey, "11", nil),
		})
		j.OnSyncFailed("pods", forbidden)
		j.OnSyncRecovered("pods")
		j.OnParseFailed("pods", pod("default", "bad", "12"), errors.New("no spec"))
		j.OnParseFailed("pods", "not an object", errors.New("garbage"))
		Expect(lines(buf.String())).To(Equal([]output.Record{
			{Status: "ResyncInProgress"},
			{Type: "New", Key: "Pod/default/web", Kind: "Pod", Namespace: "default", Name: "web", Revision: "10", UID: "u-1"},
			{Type: "Deleted", Key: "Node/n1", Kind: "Node", Name: "n1", Revision: "11", UID: "u-1"},
			{SyncFailed: "pods", Reason: "forbidden", Error: forbidden.Error()},
			{SyncRecovered: "pods"},
			{ParseFailed: "pods", Namespace: "default", Name: "bad", Error: "no spec"},
			{ParseFailed: "pods", Error: "garbage"},
		}))
		Expect(buf.String()).To(ContainSubstring(`{"type":"New","key":"Pod/default/web",`))
	})

	It("counts the types in sync and the failing ones in an InSync record", func() {
		var buf bytes.Buffer
		j := output.NewJSON(&buf, output.WithTypes(func() []progress.TypeState {
			return []progress.TypeState{{Name: "pods", Status: syncer.InSync, Keys: 1}, {Name: "nodes", Failure: "forbidden"}}
		}))
		j.OnStatusUpdated(syncer.ResyncInProgress)
		j.OnStatusUpdated(syncer.InSync)
		Expect(buf.String()).To(Equal(`{"status":"ResyncInProgress"}` + "\n" +
			`{"status":"InSync","types":2,"typesInSync":1,"failing":{"forbidden":1}}` + "\n"))
	})

	It("gives each status record the freshness of the types that confirmed a revision", func() {
		var buf bytes.Buffer
		j := output.NewJSON(&buf, output.WithTypes(func() []progress.TypeState {
			return []progress.TypeState{
				{Name: "pods", Status: syncer.InSync, Revision: "1234", Confirmed: time.Unix(1, 0), Age: 2500 * time.Millisecond},
				{Name: "nodes"}}
		}))
		j.OnStatusUpdated(syncer.ResyncInProgress)
		Expect(buf.String()).To(Equal(`{"status":"ResyncInProgress","freshness":{"pods":{"revision":"1234","ageSeconds":2.5}}}` + "\n"))
	})

	It("adds values only when asked, and never to deletions", func() {
		var buf bytes.Buffer
		j := output.NewJSON(&buf, output.WithValues(true))
		j.OnUpdates([]syncer.Update{
			update(syncer.KVUpdated, podKey, "10", pod("default", "web", "10")),
			update(syncer.KVDeleted, podKey, "11", nil),
			update(syncer.KVNew, nodeKey, "12", func() {}),
		})
		recs := lines(buf.String())
		var value corev1.Pod
		Expect(json.Unmarshal(recs[0].Value, &value)).To(Succeed())
		Expect(value.Name).To(Equal("web"))
		Expect(recs[1].Value).To(BeNil())
		Expect(string(recs[2].Value)).To(ContainSubstring("value not printable"))
	})

	It("classifies why a type fails", func() {
		Expect(output.Reason(forbidden)).To(Equal("forbidden"))
		Expect(output.Reason(apierrors.NewUnauthorized("who"))).To(Equal("unauthorized"))
		Expect(output.Reason(apierrors.NewNotFound(schema.GroupResource{Resource: "x"}, ""))).To(Equal("notServed"))
		Expect(output.Reason(fmt.Errorf("%w for 30s: %w", syncer.ErrUnreachable, errors.New("connection refused")))).To(Equal("unreachable"))
		Expect(output.Reason(errors.New("eof"))).To(Equal("other"))
	})
})

var _ = Describe("Table", func() {
	types := []progress.TypeState{
		{Name: "pods", Keys: 2, Status: syncer.InSync, Revision: "9", Confirmed: time.Unix(1, 0), Age: 1400 * time.Millisecond},
		{Name: "networkpolicies.networking.k8s.io", Status: syncer.InSync, Failure: "forbidden"},
	}

	It("summarizes the types when first in sync, then prints a row per update", func() {
		var buf bytes.Buffer
		t := output.NewTable(&buf, func() []progress.TypeState { return types }, "Pod", "NetworkPolicy.networking.k8s.io")
		t.OnStatusUpdated(syncer.ResyncInProgress)
		t.OnUpdates([]syncer.Update{update(syncer.KVNew, resources.Key{Kind: "Pod", Namespace: "a", Name: "b"}, "1", nil)})
		Expect(buf.String()).To(BeEmpty())

		t.OnStatusUpdated(syncer.InSync)
		t.OnUpdates([]syncer.Update{update(syncer.KVUpdated, resources.Key{Kind: "Pod", Namespace: "a", Name: "b"}, "2", nil)})
		t.OnParseFailed("pods", pod("a", "c", "3"), errors.New("bad"))
		t.OnStatusUpdated(syncer.ResyncInProgress)
		t.OnStatusUpdated(syncer.InSync)
		Expect(buf.String()).To(Equal(`TYPE                                  KEYS     AGE  STATE
pods                                     2      1s  in sync
networkpolicies.networking.k8s.io        0       -  forbidden
in sync: 1 of 2 types, 2 keys; 1 forbidden

EVENT     KIND                             REVISION    NAME
Updated   Pod                              2           a/b
Failed    pods                             -           a/c (bad)
-- ResyncInProgress
-- InSync: 1 of 2 types, 2 keys; 1 forbidden
`))
	})

	It("aligns its columns whatever the length of names", func() {
		var buf bytes.Buffer
		t := output.NewTable(&buf, func() []progress.TypeState { return types }, "Pod", "Node")
		t.OnStatusUpdated(syncer.InSync)
		buf.Reset()
		t.OnUpdates([]syncer.Update{
			update(syncer.KVNew, resources.Key{Kind: "Pod", Namespace: "a-long-namespace", Name: "a-long-name"}, "7", nil),
			update(syncer.KVDeleted, resources.Key{Kind: "Node", Name: "n"}, "1234567", nil),
			update(syncer.KVUpdated, resources.Key{Kind: "Pod", Namespace: "b", Name: "c"}, "12", nil),
		})
		col := func(line, word string) int { return strings.Index(line, word) }
		rows := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
		Expect(rows).To(HaveLen(3))
		Expect([]int{col(rows[0], "7"), col(rows[1], "1234567"), col(rows[2], "12")}).To(HaveEach(col(rows[0], "7")))
		Expect([]int{col(rows[0], "a-long-namespace/"), col(rows[1], " n") + 1, col(rows[2], "b/c")}).To(
			HaveEach(col(rows[0], "a-long-namespace/")))
	})

	It("names states in words", func() {
		Expect(output.State(progress.TypeState{})).To(Equal("waiting"))
		Expect(output.State(progress.TypeState{Status: syncer.ResyncInProgress})).To(Equal("listing"))
		Expect(output.State(progress.TypeState{Status: syncer.InSync})).To(Equal("in sync"))
		Expect(output.State(progress.TypeState{Status: syncer.InSync, Failure: "not served"})).To(Equal("not served"))
	})
})

var _ = Describe("Guard", func() {
	It("remembers the first write error and fails later writes", func() {
		var calls int
		g := output.Guard(writerFunc(func(p []byte) (int, error) {
			calls++
			if calls == 2 {
				return 0, errors.New("broken pipe")
			}
			return len(p), nil
		}))
		Expect(g.Failed()).NotTo(BeClosed())
		_, err := g.Write([]byte("a"))
		Expect(err).NotTo(HaveOccurred())
		_, err = g.Write([]byte("b"))
		Expect(err).To(MatchError("broken pipe"))
		Expect(g.Failed()).To(BeClosed())
		_, err = g.Write([]byte("c"))
		Expect(err).To(MatchError("broken pipe"))
		Expect(calls).To(Equal(2))
		Expect(g.Err()).To(MatchError("broken pipe"))
	})
})

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

package syncer

import (
	"context"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/kubesync/kubesync/internal/identity"
	"github.com/kubesync/kubesync/resources"
)

// Resumed is what a ResumeHandler is told once the snapshot of a checkpoint has
// been delivered whole: every persisted object of the types in Revisions went to
// OnUpdates before it (in as many calls as WithMaxBatch makes), and nothing from
// the apiserver has yet.
//
// What an agent does with it: program its dataplane from the state it now holds,
// as a state that was true at Written and is whole (Missing is empty), even while the apiserver
// cannot be reached (the status stays ResyncInProgress meanwhile, with
// Timing.LivenessStatus or without). What changed since arrives as ordinary
// updates once the apiserver answers; InSync says every
// type has caught up with the server. Types not in Revisions had nothing to
// resume from: they list as in a cold start, and their objects come later. If the
// cluster turns out not to be the checkpoint's (see WithCheckpoint), every type
// relists, and the differences arrive as updates.
type Resumed struct {
	// Written is when the checkpoint was last written; zero if unknown.
	Written time.Time
	// Revisions is each resumed type's persisted revision, by type name.
	Revisions map[string]string
	// Updates is the number of updates the snapshot was delivered in.
	Updates int
	// Missing names, in the order New was given them, the types that had nothing
	// to resume from (no persisted revision: the type never completed a list, or
	// an object of it could not be persisted). Empty: the snapshot holds every
	// type, and is whole. A type named here lists as in a cold start; an agent
	// that programs from a resumed snapshot waits for InSync when one it needs is
	// missing. A required type (WithRequired) that the checkpoint lacks is named
	// here too: the snapshot is not whole, and an agent that programs on
	// OnResumed checks that Missing is empty (snapshot.Store.Whole does), so it
	// fails closed and the log says why.
	Missing []string
}

// ResumeHandler is an optional interface of Callbacks: OnResumed is called once
// per Start that resumed from a checkpoint, after the snapshot's updates and
// before anything from the apiserver. The snapshot is whole only when
// Resumed.Missing is empty: a checkpoint that lacks a type, a required one
// (WithRequired) included, names it there, and the agent waits for InSync (or
// the missing types' own status) before it programs.
type ResumeHandler interface {
	OnResumed(Resumed)
}

// resumedSignal is a call to OnResumed.
type resumedSignal struct{ Resumed }

func (resumedSignal) isDelivery() {}

func (s *Syncer) deliverResumed(r Resumed) {
	if h, ok := s.cb.(ResumeHandler); ok {
		h.OnResumed(r)
	}
}

// resume opens the checkpoint and hands its snapshot to the callbacks. It runs on
// the loop goroutine before any watcher starts.
func (s *Syncer) resume(ctx context.Context) {
	cs := s.ckpt
	if cs == nil {
		return
	}
	began := time.Now()
	var uid <-chan identity.Result
	if cs.identity != nil {
		uid = cs.identity.Within(ctx, identityWait)
	}
	types := make([]resources.Type, len(s.types))
	for i, ts := range s.types {
		types[i] = ts.t
	}
	snap, err := cs.cp.Open(ClusterIdentity{Server: cs.server}, types, s.cfg.log)
	if err != nil {
		s.cfg.log.WithError(err).Error("Checkpoint unusable; running without it")
		s.ckpt = nil
		return
	}
	s.layWarmStart(cs.cp)
	opened := time.Since(began)
	if cs.identity != nil && snap == nil {
		s.identifyLater(ctx, uid)
		return
	}
	if cs.identity != nil {
		var r identity.Result
		select {
		case r = <-uid:
		case <-ctx.Done():
			return
		}
		switch {
		case r.Err == nil && !cs.cp.Confirm(r.UID):
			for _, ts := range s.types {
				cs.cp.Clear(ts.t.Name) // another cluster's: start cold
			}
			snap = nil
		case r.Err != nil:
			s.identityUnknown(ctx, r.Err, true)
		}
	}
	if snap == nil {
		return
	}
	s.loadSnapshot(ctx, snap, logrus.Fields{"opened": opened, "identified": time.Since(began)})
}

// identifyLater finishes the identity read of a start with nothing to resume in
// the background: there is no snapshot to confirm, only the file's header to
// write, so the cold start does not wait for it (in a fleet's start, the read is
// one more request the busy apiserver is slow to answer).
func (s *Syncer) identifyLater(ctx context.Context, uid <-chan identity.Result) {
	s.ckptWG.Add(1)
	go func() {
		defer s.ckptWG.Done()
		select {
		case r := <-uid:
			if r.Err != nil {
				s.identityUnknown(ctx, r.Err, false)
				return
			}
			s.ckpt.cp.Confirm(r.UID)
		case <-ctx.Done():
		}
	}()
}

// identityUnknown: the identity read failed. A refused one is logged and not
// asked again (identityRefused). Any other failure is retried in the background
// (confirmLater).
func (s *Syncer) identityUnknown(ctx context.Context, err error, resuming bool) {
	if identity.Refused(err) {
		s.identityRefused(err)
		return
	}
	if resuming {
		s.cfg.log.WithError(err).Warn("Cluster identity unknown; trusting the checkpoint's apiserver address until it is known")
	}
	s.confirmLater(ctx, resuming)
}

// identityRefused: RBAC will not change its mind, so the identity is not asked
// again and the apiserver's address alone decides.
func (s *Syncer) identityRefused(err error) {
	s.cfg.log.WithError(err).Warn("The cluster identity may not be read; the checkpoint is trusted on the apiserver's address alone")
}

// confirmLater reads the cluster identity with backoff until it is known; if the
// checkpoint turns out to come from another cluster and the syncer resumed from
// it, every type relists, diffed against what was delivered.
func (s *Syncer) confirmLater(ctx context.Context, resumed bool) {
	s.ckptWG.Add(1)
	go func() {
		defer s.ckptWG.Done()
		b := s.cfg.backoff
		for {
			t := s.cfg.clock.NewTimer(b.Step())
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C():
			}
			uid, err := s.ckpt.identity(ctx)
			switch {
			case err == nil:
				select {
				case s.identities <- identified{cluster: uid, resumed: resumed}:
				case <-ctx.Done():
				}
				return
			case identity.Refused(err):
				s.identityRefused(err)
				return
			}
		}
	}()
}

// identified is the cluster's identity, read after the start (confirmLater),
// which the loop compares with the checkpoint's (Syncer.confirmIdentity).
type identified struct {
	cluster string
	resumed bool // the syncer resumed from the checkpoint
}

// confirmIdentity compares the identity read after the start with the checkpoint's, on
// the loop. If the cluster is another one, the checkpoint forgets every type's
// revision, and so do the journals, so that each type's is noted again once it
// watches. A syncer that resumed then relists every type, in this one step: no
// watch event of the old cluster's state is handled in between, and no revision
// is noted again until a type's relist completes (finishList), so a restart
// never resumes the old cluster's objects as this one's.
func (s *Syncer) confirmIdentity(ctx context.Context, id identified) {
	if s.ckpt.cp.Confirm(id.cluster) {
		return
	}
	s.warm.forgotten()
	if !id.resumed {
		return
	}
	s.cfg.log.Warn("The checkpoint belongs to another cluster; relisting every type")
	if ups := s.same.forget(); len(ups) > 0 {
		s.enqueueUpdates(ups)
	}
	for _, ts := range s.types {
		ts.retell = s.same.shares(ts.idx)
		s.exec(ctx, ts, forceList(ts))
	}
}

// loadSnapshot puts each resumed type's objects in its ledger and queues them as
// New, then the Resumed signal. A type with no persisted revision never completed
// a list: its objects are dropped and it lists cold.
func (s *Syncer) loadSnapshot(ctx context.Context, snap *Persisted, timing logrus.Fields) {
	start := time.Now()
	sig := Resumed{Written: snap.Written, Revisions: map[string]string{}}
	var lacking []string // required types with nothing to resume: the snapshot is not whole
	for _, ts := range s.types {
		tsnap := snap.Types[ts.t.Name]
		if tsnap == nil || tsnap.Revision == "" {
			s.ckpt.cp.Clear(ts.t.Name)
			sig.Missing = append(sig.Missing, ts.t.Name)
			if ts.required() {
				lacking = append(lacking, ts.t.Name)
			}
			continue
		}
		ts.resumeAt(tsnap.Revision)
		s.warm.journals[ts.idx].rv = tsnap.Revision // the checkpoint holds it
		sig.Revisions[ts.t.Name] = tsnap.Revision
		ts.resumedFresh(tsnap, snap.Written)
	}
	s.reportStatus() // ResyncInProgress, before the snapshot
	now := s.cfg.clock.Now()
	for _, ts := range s.types {
		if _, resumed := sig.Revisions[ts.t.Name]; !resumed {
			continue
		}
		var out commands
		convert := s.resumer(ts)
		ups := make([]Update, 0, len(snap.Types[ts.t.Name].Objects))
		for _, po := range snap.Types[ts.t.Name].Objects {
			o := convert(po)
			if o.Err != nil {
				// The persisted ledger no longer matches this conversion: list.
				ts.parseFailed(o, &out)
				ts.listFor(ListInitial)
				continue
			}
			keys := make([]resources.Key, len(o.KVs))
			for i, kv := range o.KVs {
				keys[i] = kv.Key
				ups = append(ups, Update{KVPair: kv, UpdateType: KVNew})
			}
			ts.ledger.shared().Put(o.ID, o.Rev, o.UID, keys, ts.epoch) // the checkpoint's own: not noted
		}
		out.add(queueUpdates{ups})
		ts.observe(now, &out)
		queued := s.queued
		s.exec(ctx, ts, out)
		sig.Updates += s.queued - queued // as delivered: a key of a shared kind once (samekind.go)
	}
	if len(lacking) > 0 {
		// Not whole: Missing names them, so an agent fails closed and knows why.
		s.cfg.log.WithField("required", lacking).Warn("The checkpoint lacks required types; the resumed snapshot is not whole")
	}
	if len(sig.Revisions) > 0 {
		s.enqueue(resumedSignal{sig}) // after the snapshot, before anything from the server
	}
	s.cfg.log.WithFields(timing).WithFields(logrus.Fields{"types": len(sig.Revisions), "objects": sig.Updates,
		"queued": time.Since(start)}).Info("Resumed from the checkpoint")
}

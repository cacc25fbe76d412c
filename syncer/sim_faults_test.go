package syncer

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// simFaultKind is one kind of fault the simulator injects. A fault is drawn
// into a seed's schedule at a step; it fires when it has an effect (a refused
// request, a cut stream, a kill), which is what the specs count.
type simFaultKind uint8

const (
	fCompact         simFaultKind = iota // etcd compacts at its revision: older watches and continues get 410
	fCacheStall                          // one apiserver's caches stop following etcd for a while
	fImpatient                           // one apiserver answers a consistent read on a lagging cache with 504 or 429
	fServerRestart                       // one apiserver restarts: its streams end, its cache starts again
	fForbidden                           // a type is refused (403, or 401) for a while
	fCRDRemoved                          // the CRD of the custom type is removed, then restored
	fCutInitial                          // a type's next stream ends before its initial-events-end bookmark
	fCutWatch                            // a type's open watch ends (cleanly or with an error)
	fExpireWatch                         // a type's open watch gets 410 mid-stream
	fSilent                              // a type's next stream or watch goes silent (a half-open connection)
	fNoBookmarks                         // one apiserver sends no bookmark for a while
	fNoWatchList                         // one apiserver refuses streaming lists for a while (400)
	fInternal                            // a type's lists and streams fail with 500 for a while
	fSlowRead                            // a type's metadata pages and GETs time out for a while
	fGetForbidden                        // a type's GETs are forbidden (a role of list and watch only)
	fProxyNewer                          // a proxy serves a type's next continue page at a newer revision
	fKill                                // the agent is killed: what the checkpoint did not write is lost
	fTorn                                // the agent is killed during a checkpoint write: the file is damaged
	fRestart                             // the agent stops cleanly and starts again
	fNewCluster                          // the agent restarts against another cluster under its checkpoint
	fIdentityUnknown                     // at the next start the cluster identity cannot be read for a while
	fSlowConsumer                        // the consumer stops draining for a while (back-pressure)
	fRelist                              // Syncer.Relist of a type
	fWriteBurst                          // many writes at once
	fUnreachable                         // a type's requests do not reach the apiserver for a while (connection refused)
	fGetGone                             // observed: an object gone between the metadata list and its GET (404)
	fGetNewer                            // observed: a GET returned a newer revision than the list's
	fGetNewUID                           // observed: a GET returned another object under the same name
	fStalledServer                       // a type's apiserver stalls for a while: streams silent, requests unanswered
	fOutageShort                         // observed: an outage of a type ended within UnreachableAfter
	fOutageLong                          // observed: an outage of a type lasted UnreachableAfter or more
	fConsumerHeld                        // the consumer is held for simulated time while the server goes on answering
	simFaultKinds
)

var simFaultNames = [...]string{
	fCompact: "compact", fCacheStall: "cache-stall", fImpatient: "consistent-read-504/429",
	fServerRestart: "apiserver-restart", fForbidden: "forbidden", fCRDRemoved: "crd-removed",
	fCutInitial: "stream-cut-before-end", fCutWatch: "watch-cut", fExpireWatch: "watch-410",
	fSilent: "silent-connection", fNoBookmarks: "no-bookmarks", fNoWatchList: "watchlist-refused",
	fInternal: "internal-error", fSlowRead: "slow-get", fGetForbidden: "get-forbidden",
	fProxyNewer: "continue-at-newer-revision", fKill: "kill", fTorn: "torn-write", fRestart: "restart",
	fNewCluster: "cluster-changed", fIdentityUnknown: "identity-unknown", fSlowConsumer: "slow-consumer",
	fRelist: "relist", fWriteBurst: "write-burst", fUnreachable: "unreachable", fGetGone: "get-404-race", fGetNewer: "get-newer-revision",
	fGetNewUID: "get-new-uid", fStalledServer: "stalled-server", fOutageShort: "outage-short", fOutageLong: "outage-long", fConsumerHeld: "consumer-held",
}

func (k simFaultKind) String() string { return simFaultNames[k] }

// simFaultWeights is how often each kind is drawn; the observed kinds are
// never drawn: the cluster's own writes make them.
var simFaultWeights = [simFaultKinds]int{
	fCompact: 3, fCacheStall: 4, fImpatient: 3, fServerRestart: 3, fForbidden: 4, fCRDRemoved: 2,
	fCutInitial: 5, fCutWatch: 5, fExpireWatch: 3, fSilent: 3, fNoBookmarks: 2, fNoWatchList: 2,
	fInternal: 3, fSlowRead: 3, fGetForbidden: 4, fProxyNewer: 3, fKill: 5, fTorn: 1, fRestart: 2,
	fNewCluster: 2, fIdentityUnknown: 3, fSlowConsumer: 3, fRelist: 2, fWriteBurst: 3, fUnreachable: 3,
	fStalledServer: 3,
	fConsumerHeld:  3,
}

// simFault is one fault of a schedule: its step, kind, and what it applies to
// (a type or an apiserver, by index) and for how many steps.
type simFault struct {
	Step   int
	Kind   simFaultKind
	Target int
	Steps  int
}

func (f simFault) String() string {
	return fmt.Sprintf("%d:%s(target %d, %d steps)", f.Step, f.Kind, f.Target, f.Steps)
}

// drawFaults draws a seed's schedule: about one fault per perStep steps, none
// in the last tenth, which leads to the quiet phase.
func drawFaults(rnd *rand.Rand, steps, perStep int) []simFault {
	total := 0
	for _, w := range simFaultWeights {
		total += w
	}
	var out []simFault
	for i := 0; i < steps/perStep; i++ {
		n := rnd.IntN(total)
		k := simFaultKind(0)
		for ; n >= simFaultWeights[k]; k++ {
			n -= simFaultWeights[k]
		}
		out = append(out, simFault{Step: rnd.IntN(steps * 9 / 10), Kind: k, Target: rnd.IntN(1 << 10), Steps: 5 + rnd.IntN(60)})
	}
	slices.SortStableFunc(out, func(a, b simFault) int { return a.Step - b.Step })
	return out
}

func formatFaults(fs []simFault) string {
	var b strings.Builder
	for i, f := range fs {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(f.String())
	}
	return b.String()
}

// simFaultState is what the faults drawn so far have armed. Counters are steps
// left; flags wait for the request they apply to.
type simFaultState struct {
	forbidden    []int // per type
	refusal      []int // per type: 403 or 401
	internal     []int
	slowRead     []int
	getForbidden []int
	unreachable  []int
	stallUntil   []time.Time // per type: its apiserver stalls until then (sim_outage_test.go)
	cutInitial   []int       // per type: initial events before the cut, -1: none
	cutWatch     []bool
	expireWatch  []bool
	silent       []bool
	proxyNewer   []bool
	crdGone      int
	stalled      []int // per apiserver
	impatient    []int
	noBookmarks  []int
	noWatchList  []int
	slowConsumer int
	newCluster   bool
	idUnknown    bool
}

func newSimFaultState(types, servers int) simFaultState {
	fs := simFaultState{
		forbidden: make([]int, types), refusal: make([]int, types), internal: make([]int, types),
		slowRead: make([]int, types), getForbidden: make([]int, types), unreachable: make([]int, types),
		stallUntil: make([]time.Time, types),
		cutInitial: make([]int, types),
		cutWatch:   make([]bool, types), expireWatch: make([]bool, types), silent: make([]bool, types),
		proxyNewer: make([]bool, types),
		stalled:    make([]int, servers), impatient: make([]int, servers), noBookmarks: make([]int, servers),
		noWatchList: make([]int, servers),
	}
	for i := range fs.cutInitial {
		fs.cutInitial[i] = -1
	}
	return fs
}

// decay counts one step off every fault that lasts.
func (fs *simFaultState) decay() {
	for _, c := range [][]int{fs.forbidden, fs.internal, fs.slowRead, fs.getForbidden, fs.unreachable, fs.stalled,
		fs.impatient, fs.noBookmarks, fs.noWatchList} {
		for i := range c {
			c[i] = max(0, c[i]-1)
		}
	}
	fs.crdGone = max(0, fs.crdGone-1)
	fs.slowConsumer = max(0, fs.slowConsumer-1)
}

// applyFaults applies the faults drawn for this step, and counts down the
// ones that last; a removed CRD is restored when its count ends.
func (r *simRun) applyFaults() {
	res := r.cluster.Resource("widgets")
	if !res.Served && r.fx.crdGone == 0 {
		r.cluster.Restore("widgets")
	}
	r.fx.decay()
	for ; r.nextF < len(r.faults) && r.faults[r.nextF].Step <= r.step; r.nextF++ {
		f := r.faults[r.nextF]
		r.tracef("fault %s", f)
		r.apply(f)
	}
}

func (r *simRun) apply(f simFault) {
	fx, ti, si := &r.fx, f.Target%len(r.types), f.Target%simServers
	switch f.Kind {
	case fCompact:
		r.fire(fCompact)
		r.cluster.Compact()
	case fCacheStall:
		r.fire(fCacheStall)
		fx.stalled[si] = f.Steps
	case fImpatient:
		fx.impatient[si] = f.Steps
	case fServerRestart:
		r.fire(fServerRestart)
		srv := r.cluster.Servers[si]
		srv.Restart()
		for _, g := range r.life.watchers {
			if g != nil && g.st != nil && g.st.srv == srv && g.st.errNext == nil {
				g.st.errNext = errSimReset
			}
		}
	case fForbidden:
		fx.forbidden[ti], fx.refusal[ti] = f.Steps, []int{403, 403, 401}[f.Target/len(r.types)%3]
	case fCRDRemoved:
		if r.cluster.Resource("widgets").Served {
			r.cluster.Remove("widgets")
			fx.crdGone = f.Steps
		}
	case fCutInitial:
		fx.cutInitial[ti] = f.Target / len(r.types) % 4
	case fCutWatch:
		fx.cutWatch[ti] = true
	case fExpireWatch:
		fx.expireWatch[ti] = true
	case fSilent:
		fx.silent[ti] = true
	case fNoBookmarks:
		r.fire(fNoBookmarks)
		fx.noBookmarks[si] = f.Steps
	case fNoWatchList:
		fx.noWatchList[si] = f.Steps
	case fInternal:
		fx.internal[ti] = f.Steps
	case fSlowRead:
		fx.slowRead[ti] = f.Steps
	case fGetForbidden:
		fx.getForbidden[ti] = f.Steps
	case fProxyNewer:
		fx.proxyNewer[ti] = true
	case fUnreachable:
		fx.unreachable[ti] = f.Steps
		r.cutOff(ti)
	case fStalledServer:
		r.stall(ti, f.Steps)
	default:
		r.applyToAgent(f, ti)
	}
}

// applyToAgent applies the faults of the agent's process and its consumer.
func (r *simRun) applyToAgent(f simFault, ti int) {
	switch f.Kind {
	case fKill:
		r.fire(fKill)
		r.restart(false, false)
	case fTorn:
		if r.checkpoint {
			r.fire(fTorn)
			r.restart(false, true)
		}
	case fRestart:
		r.fire(fRestart)
		r.restart(true, false)
	case fNewCluster:
		if r.checkpoint && r.file.cluster != "" {
			r.fx.newCluster = true
			r.fx.idUnknown = r.fx.idUnknown || f.Target%2 == 0
			r.restart(false, false)
		}
	case fIdentityUnknown:
		if r.checkpoint {
			r.fx.idUnknown = true
			r.restart(false, false)
		}
	case fSlowConsumer:
		r.fire(fSlowConsumer)
		r.fx.slowConsumer = f.Steps
	case fConsumerHeld:
		r.holdConsumer(f) // fires once the loop pushes back
	case fRelist:
		r.fire(fRelist)
		r.relistArm(relistRequest{idx: ti, reply: make(chan struct{})})
	case fWriteBurst:
		r.fire(fWriteBurst)
		for range 5 + f.Target%10 {
			r.write()
		}
	}
}

package syncer

import (
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// Timing is when a Syncer retries, relists, gives a connection up for dead and
// reports a type unreachable or silent: the knobs that are tuned together,
// against one apiserver's bookmark interval and one network's outages. Give it
// to WithTiming. A zero field leaves its setting as it was, which is the
// default stated on the field unless an earlier WithTiming set it; a negative
// one is refused by New.
type Timing struct {
	// Backoff is the retry backoff of each type (default DefaultBackoff): every
	// request that follows a failure waits the next step, from Duration, times
	// Factor, up to Cap, lengthened by up to Jitter. A watch that stayed open for
	// MinWatchLife resets it, and so does one that stayed open for Duration once
	// the server had answered (its list completed, or an event or bookmark
	// came). Steps is ignored: retries never stop.
	Backoff wait.Backoff

	// MinWatchLife is how long a watch must stay open to count as healthy even
	// if the server sent nothing on it (default 30s): its end is re-opened at
	// once and resets the type's backoff. A watch that ends or fails sooner, and
	// before the server answered (see Backoff), is retried after the next
	// backoff step.
	MinWatchLife time.Duration

	// WatchProgressTimeout is how long a watch, or a request of a list, may go
	// without a byte of progress (an event, a bookmark, a page) before it is
	// closed and retried (default DefaultWatchProgressTimeout). This is what
	// notices a half-open connection.
	WatchProgressTimeout time.Duration

	// InitialEventsTimeout is how long a streaming list (WatchList) may go
	// without an event before its initial-events-end bookmark (default 30s:
	// with 60 agents starting at once on a loaded apiserver, streams paused for
	// over 10s). Past it, Auto falls back to paged lists for the type;
	// WatchList retries.
	InitialEventsTimeout time.Duration

	// BehindLimit is how long a type retries, on its backoff and from its
	// revision, a watch that the server answers with too large a resource
	// version before it relists (default DefaultBehindLimit).
	BehindLimit time.Duration

	// ErrorsToRelist is how many consecutive watch errors at one revision make
	// a type relist (default 5). Only errors the apiserver answered count: a
	// failure to reach it (see UnreachableAfter) never makes a type relist.
	ErrorsToRelist int

	// UnreachableAfter is how long a type's requests may fail to reach the
	// apiserver before it reports Unreachable (default DefaultUnreachableAfter).
	// Failing to reach it is a refused or reset connection, a timeout (a
	// request with no progress for WatchProgressTimeout included), or an answer
	// of 502 or 503, which a balancer gives for an apiserver it cannot reach.
	// The failure is reported UnreachableAfter after the first such error, if
	// the server has not answered since, even while no error comes (a stalled
	// server's next one comes a WatchProgressTimeout later): so within it and
	// one backoff step (at most its Cap) of the first error. It goes to
	// OnSyncFailed, Observer.SyncFailed and TypeStatus as a forbidden type's
	// does, and ends, with OnSyncRecovered, at the server's first answer: an
	// event, a list page, an opened watch, or an error the server itself gave.
	// The type keeps what it has and its status meanwhile, and does not relist
	// for it (LivenessStatus makes the status follow). When a request of any
	// type reaches the server again, the types backing off after failing to
	// reach it retry at once, with a jitter of up to 100 ms.
	UnreachableAfter time.Duration

	// LivenessStatus, when positive, makes the status follow liveness, as
	// Calico's watchersyncer does since it derives its status from every
	// cache's: a type the server has not answered for LivenessStatus (no event,
	// bookmark, list page or opened watch), or that relists, takes the status
	// out of InSync, to ResyncInProgress, or to WaitForDatastore when every type
	// is silent; once the types answer again it comes back through
	// ResyncInProgress to InSync. Updates queued before a change of status are
	// delivered before it, and no OnUpdates is delivered while the status is
	// WaitForDatastore. A type that is refused or missing counts as it does
	// without it. Statuses and the Observer show each type's status the same
	// way.
	//
	// Silence is counted only while the syncer reads the server's answers: the
	// time it pushes back on a slow consumer (WithMaxQueued) does not count, as
	// answers may be waiting for it, and a type not answered yet counts from
	// the start. After a warm start the status stays ResyncInProgress until the
	// resumed types have caught up with the server, even while it cannot be
	// reached (see Resumed).
	//
	// Zero (the default) keeps the status InSync once reached: a relist arrives
	// as one batch, and the age of each type's view is in TypeStatus. Keep it
	// for a consumer that acts on every update as it comes and needs only to
	// know that a whole state arrived once; set it for one that must stop
	// acting on a view that has gone old (a policy agent that should not
	// program from a stale cache), at the price of status changes on every
	// outage. It must be longer than the apiserver's bookmark interval (about a
	// minute, kube-apiserver's watch cache), which is all a quiet type hears:
	// 90s does, and WatchProgressTimeout replaces the connection of a silent
	// watch.
	LivenessStatus time.Duration
}

// WithTiming sets the Syncer's timing; see Timing for each field and its
// default. Given more than once, each sets the fields it does not leave zero.
func WithTiming(t Timing) Option {
	return func(c *config) {
		setNonZero(&c.backoff, t.Backoff)
		setNonZero(&c.minWatchLife, t.MinWatchLife)
		setNonZero(&c.progressTimeout, t.WatchProgressTimeout)
		setNonZero(&c.initialEventsTimeout, t.InitialEventsTimeout)
		setNonZero(&c.behindLimit, t.BehindLimit)
		setNonZero(&c.errorsToResync, t.ErrorsToRelist)
		setNonZero(&c.unreachableAfter, t.UnreachableAfter)
		setNonZero(&c.liveAfter, t.LivenessStatus)
	}
}

// setNonZero sets *dst to v unless v is its type's zero value, which stands
// for "as it was".
func setNonZero[T comparable](dst *T, v T) {
	var zero T
	if v != zero {
		*dst = v
	}
}

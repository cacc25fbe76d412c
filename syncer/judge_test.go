package syncer

import (
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
)

// The failure policy is this table: every class of error, in every stage, as
// judge decides it for a type that recalls nothing (Auto still streaming).
// Columns: watch, list, stream, fence (a stream), fence by list. A verdict is
// written as its parts (judgeSummary): "unreached" (parks the retry for the
// wake-up, begins an Unreachable episode), "report", "relist <reason>",
// "retry-list", "forget", "count-err" (toward ErrorsToRelist), "note-behind",
// "count-stream-end", "page", "page-once", "fence-by-list", the standing
// ("backoff", "missing", "refused"), and the wait if not a backoff step
// ("no-wait", "patience").
var judgeTable = map[errorClass][5]string{
	classExpired: {"relist expired, backoff, no-wait", "relist expired, backoff, no-wait",
		"relist expired, backoff, no-wait", "relist expired, backoff, no-wait", "relist expired, backoff, no-wait"},
	classBehind: {"note-behind, backoff", "retry-list, backoff", "retry-list, backoff", "backoff", "backoff"},
	classTooMany: {"retry-list, backoff, patience", "retry-list, backoff, patience", "retry-list, backoff, patience",
		"retry-list, backoff, patience", "retry-list, backoff, patience"},
	classMissing: {"report, relist reappeared, forget, missing", "report, relist reappeared, forget, missing",
		"report, relist reappeared, forget, missing", "report, relist reappeared, forget, missing",
		"report, relist reappeared, forget, missing"},
	classForbidden: {"report, retry-list, refused", "report, retry-list, refused", "page",
		"relist catchup, page, backoff", "report, retry-list, refused"},
	classUnauthorized: {"report, retry-list, refused", "report, retry-list, refused", "report, retry-list, refused",
		"report, retry-list, refused", "report, retry-list, refused"},
	classUnsupported: {"page, backoff, no-wait", "page, backoff, no-wait", "page, backoff, no-wait",
		"fence-by-list, backoff, no-wait", "page, backoff, no-wait"},
	classStalled: {"unreached, retry-list, backoff", "unreached, retry-list, backoff",
		"unreached, page, backoff, no-wait", "unreached, fence-by-list, backoff, no-wait",
		"unreached, retry-list, backoff"},
	classStreamEnded: {"count-err, backoff", "retry-list, backoff", "retry-list, count-stream-end, backoff",
		"count-stream-end, backoff", "backoff"},
	classServerError: {"count-err, backoff", "retry-list, backoff", "retry-list, count-stream-end, backoff",
		"backoff", "backoff"},
	classBadGateway: {"unreached, backoff", "unreached, retry-list, backoff",
		"unreached, retry-list, count-stream-end, backoff", "unreached, backoff", "unreached, backoff"},
	classUnavailable: {"unreached, backoff", "unreached, retry-list, backoff", "unreached, retry-list, backoff",
		"unreached, backoff", "unreached, backoff"},
	classTransport: {"unreached, backoff", "unreached, retry-list, backoff", "unreached, retry-list, page-once, backoff",
		"unreached, backoff", "unreached, backoff"},
	classNoConnection: {"unreached, backoff", "unreached, retry-list, backoff", "unreached, retry-list, backoff",
		"unreached, backoff", "unreached, backoff"},
	classNoAnswer: {"unreached, backoff", "unreached, retry-list, backoff",
		"unreached, retry-list, count-stream-end, backoff", "unreached, backoff", "unreached, backoff"},
	classOther:     {"count-err, backoff", "retry-list, backoff", "retry-list, page-once, backoff", "backoff", "backoff"},
	classOddStatus: {"count-err, backoff", "retry-list, backoff", "retry-list, backoff", "backoff", "backoff"},
}

// judgeSummary writes v as the table above does.
func judgeSummary(v verdict) string {
	var parts []string
	add := func(on bool, s string) {
		if on {
			parts = append(parts, s)
		}
	}
	add(!v.reached, "unreached")
	add(v.report, "report")
	add(v.relist != NoList, "relist "+v.relist.String())
	add(v.retryList, "retry-list")
	add(v.forget, "forget")
	add(v.countErr, "count-err")
	add(v.noteBehind, "note-behind")
	add(v.countStreamEnd, "count-stream-end")
	add(v.reshape != reshapeNone, [...]string{"", "page", "page-once", "fence-by-list"}[v.reshape])
	add(v.stand != standKeep, [...]string{"", "backoff", "missing", "refused"}[v.stand])
	add(v.delay != waitStep, [...]string{"", "no-wait", "patience"}[v.delay])
	return strings.Join(parts, ", ")
}

var _ = Describe("The failure policy", func() {
	base := recall{autoStreams: true}

	It("has a verdict for every class of error in every stage, the table's", func() {
		for c := classOther; c <= classOddStatus; c++ {
			row, ok := judgeTable[c]
			Expect(ok).To(BeTrue(), "the table has no row for %s", c)
			for s := duringWatch; s <= duringFenceList; s++ {
				Expect(judgeSummary(judge(c, s, base))).To(Equal(row[s]), "%s during a %s", c, s)
			}
		}
		Expect(judgeTable).To(HaveLen(int(classOddStatus) + 1))
	})

	DescribeTable("follows what the type recalls",
		func(c errorClass, s stage, m recall, want string) {
			Expect(judgeSummary(judge(c, s, m))).To(Equal(want))
		},
		Entry("a server behind a watch's revision for the limit relists it", classBehind, duringWatch,
			recall{behindTooLong: true}, "relist expired, note-behind, backoff"),
		Entry("a 410 after a 410 with no healthy watch between waits a step", classExpired, duringWatch,
			recall{expiredAgain: true}, "relist expired, backoff"),
		Entry("a watch error that makes ErrorsToRelist relists", classServerError, duringWatch,
			recall{errsAtLimit: true}, "relist errors, count-err, backoff"),
		Entry("an error that did not reach the server never counts (rule 19)", classTransport, duringWatch,
			recall{errsAtLimit: true}, "unreached, backoff"),
		Entry("nor a 429 (rule 20)", classTooMany, duringWatch,
			recall{errsAtLimit: true}, "retry-list, backoff, patience"),
		Entry("nor a fence's error", classServerError, duringFence,
			recall{errsAtLimit: true}, "backoff"),
		Entry("the third stream that ends early makes Auto page", classStreamEnded, duringStream,
			recall{autoStreams: true, lastStreamEnd: true}, "retry-list, count-stream-end, page, backoff"),
		Entry("so does the third whose connection closed before its answer", classNoAnswer, duringStream,
			recall{autoStreams: true, lastStreamEnd: true}, "unreached, retry-list, count-stream-end, page, backoff"),
		Entry("the third fence stream that ends early makes the fence list", classStreamEnded, duringFence,
			recall{lastStreamEnd: true}, "count-stream-end, fence-by-list, backoff"),
		Entry("a 500 to a fence never gives streams up", classServerError, duringFence,
			recall{lastStreamEnd: true}, "backoff"),
		Entry("a required type that is missing keeps what it had", classMissing, duringWatch,
			recall{required: true}, "report, relist reappeared, missing"),
		Entry("a refused stream a type that pages anyway is a server error", classUnsupported, duringWatch,
			recall{}, "count-err, backoff"),
		Entry("... during a list too", classUnsupported, duringList, recall{}, "retry-list, backoff"),
	)

	It("tells each class of error from what the server and the transport say", func() {
		gr := schema.GroupResource{Resource: "d"}
		status := func(code int32) error {
			return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: code}}
		}
		tooLarge := apierrors.NewTimeoutError("Too large resource version", 1)
		tooLarge.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge}}
		for err, want := range map[error]errorClass{
			apierrors.NewResourceExpired("too old"):                                   classExpired,
			tooLarge:                                                                  classBehind,
			apierrors.NewTooManyRequests("busy", 1):                                   classTooMany,
			apierrors.NewNotFound(gr, ""):                                             classMissing,
			apierrors.NewForbidden(gr, "", errors.New("no")):                          classForbidden,
			apierrors.NewUnauthorized("expired token"):                                classUnauthorized,
			fmt.Errorf("%w: %w", errWatchListUnsupported, status(400)):                classUnsupported,
			fmt.Errorf("%w (10s): %w", errNoProgress, errors.New("context canceled")): classStalled,
			errStreamEnded: classStreamEnded,
			apierrors.NewInternalError(errors.New("boom")):                  classServerError,
			status(http.StatusBadGateway):                                   classBadGateway,
			apierrors.NewServiceUnavailable("restarting"):                   classUnavailable,
			&net.OpError{Op: "dial", Err: errors.New("connection refused")}: classNoConnection,
			&net.OpError{Op: "read", Err: errors.New("connection reset")}:   classTransport,
			io.ErrUnexpectedEOF:                                             classTransport,
			errPagesDiffer:                                                  classOther,
			status(0):                                                       classOddStatus,
		} {
			Expect(classify(err)).To(Equal(want), "%v", err)
		}
	})

	It("tells a request that got no answer from a response cut once it began, as net/http reports them", func() {
		get := func(rt http.RoundTripper, addr string) error {
			resp, err := (&http.Client{Transport: rt}).Get(addr)
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			_, err = io.ReadAll(resp.Body)
			return err
		}
		closed, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		refusedAddr := "http://" + closed.Addr().String()
		Expect(closed.Close()).To(Succeed())
		refused := get(&http.Transport{}, refusedAddr)

		mute, err := net.Listen("tcp", "127.0.0.1:0") // accepts, never answers a handshake
		Expect(err).NotTo(HaveOccurred())
		defer mute.Close()
		handshake := get(&http.Transport{TLSHandshakeTimeout: 50 * time.Millisecond}, "https://"+mute.Addr().String())

		// answer reads a request, writes what it is given, and closes.
		answer := func(what string) string {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(l.Close)
			go func() {
				conn, err := l.Accept()
				if err == nil {
					_, _ = conn.Read(make([]byte, 1024))
					_, _ = conn.Write([]byte(what))
					conn.Close()
				}
			}()
			return "http://" + l.Addr().String()
		}
		lost := get(&http.Transport{}, answer(""))
		cut := get(&http.Transport{}, answer("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"type\":"))

		Expect([]errorClass{classify(refused), classify(handshake), classify(lost), classify(cut)}).To(
			Equal([]errorClass{classNoConnection, classNoConnection, classNoAnswer, classTransport}),
			"%v; %v; %v; %v", refused, handshake, lost, cut)
	})
})

// A step draws the jitter of its backoff and of a 429's Retry-After from the
// config's jitter source, which the simulator seeds, not from math/rand.
var _ = Describe("A type's backoff jitter", func() {
	var ts *typeState
	BeforeEach(func() {
		cfg := defaults()
		cfg.backoff = wait.Backoff{Duration: time.Second, Factor: 2, Jitter: 0.5, Cap: time.Minute, Steps: math.MaxInt32}
		cfg.jitter = func(d time.Duration) time.Duration { return d } // always the most
		ts = newTypeState(stepType("apps"), nil, &cfg)
	})

	It("is drawn from the config's jitter source", func() {
		Expect([]time.Duration{ts.nextDelay(false), ts.nextDelay(false), ts.nextDelay(false)}).To(
			Equal([]time.Duration{1500 * time.Millisecond, 3 * time.Second, 6 * time.Second}))
	})

	It("draws a 429's Retry-After jitter from it too", func() {
		busy := event{kind: evError, err: apierrors.NewTooManyRequests("busy", 10)}
		Expect(ts.delayFor(waitPatience, busy)).To(Equal(15 * time.Second))
	})

	It("makes a simulated run with jitter the same run twice, and another than without", func() {
		run := func(jitter float64) []string {
			res := newSimRun(simOptions{seed: 5, steps: 600, jitter: jitter, trace: true}).run()
			Expect(res.violation).To(BeEmpty())
			return res.trace
		}
		jittered := run(0.5)
		Expect(run(0.5)).To(Equal(jittered))
		Expect(run(0)).NotTo(Equal(jittered))
	})
})

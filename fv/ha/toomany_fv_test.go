package ha_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/kubesync/kubesync/controlplane"
	"github.com/kubesync/kubesync/fv/env"
	"github.com/kubesync/kubesync/fv/orchestrate"
	"github.com/kubesync/kubesync/internal/samples"
	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// skipTimeoutFallback makes a consistent list whose watch cache does not catch
// up answer 429 instead of reading etcd. The spec runs its apiservers with it,
// but drives its 429s through priority and fairness: a cache that lags etcd
// for 3 s while etcd answers cannot be had at will on loopback (cutting an
// apiserver off from etcd holds its reads of etcd's revision too).
const skipTimeoutFallback = "ConsistentListFromCacheSkipTimeoutFallback"

var _ = Describe("a highly available control plane that answers 429", func() {
	const busyNS = "ha-busy"
	busyTypes := []resources.Type{resources.ConfigMaps.InNamespace(busyNS), resources.Services.InNamespace(busyNS)}

	It("keeps the syncer equal to the server, no revision going back, through 429s with Retry-After, none of them counted toward a relist", func(ctx SpecContext) {
		env.RequireFeatureGate(skipTimeoutFallback)
		c := startCluster(ctx, controlplane.WithAPIServerFlag("feature-gates", skipTimeoutFallback+"=true"))
		Expect(samples.Create(ctx, c.Dyn, resources.Namespaces, "", busyNS)).To(Succeed())
		// The admin's writes are exempt from priority and fairness: they go on
		// while the syncer is refused, which has them to catch up with.
		w := startWriting(ctx, c.Config(), busyTypes, seed())
		// The user may list and watch the types, and create config maps, which
		// busyUntilDeleted needs.
		rules := append(env.ListWatchRules(busyTypes), rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"create"}})
		user, err := c.AddUser(ctx, busyUser, rules)
		Expect(err).NotTo(HaveOccurred())
		busy := &busyLog{}
		cfg := throughBalancer(c, user)
		cfg.Wrap(busy.wrap)
		run := startSyncer(cfg, busyTypes)

		// Every apiserver's priority and fairness rejects the user's requests
		// (429 with Retry-After) once it has the flow schema; every connection
		// is cut, so that the syncer's watches open again into it.
		busyUntilDeleted(ctx, c, user, busyNS)
		faultAt := time.Now()
		c.LB.Cut()
		// With the cut's error, as many as the watch errors at one revision
		// that make a type relist (5), were a 429 one.
		for _, t := range busyTypes {
			Eventually(func() int { return busy.count(t.GVR.Resource) }).Should(BeNumerically(">=", 5), "%s answered 429", t.Name)
		}
		Expect(deleteBusy(ctx, c)).To(Succeed())
		held := time.Since(faultAt)
		done, failed := w.stop()
		converged := converge(ctx, c, run.consumer, w.Writer, time.Now(), busyTypes)
		waits, early := busy.earliest()
		AddReportEntry("HA 429", ReportEntryVisibilityAlways, fmt.Sprintf(
			"429s by resource %v; %d requests after one, the earliest %s before its Retry-After; 429s for %s; converged %s after; "+
				"%d writes, %d failed; lists by type and reason %v; syncer log: %s",
			busy.counts(), waits, early.Round(time.Millisecond), held.Round(time.Millisecond), converged.Round(time.Millisecond),
			done, failed, run.listed(busyTypes), run.logged.Summary()))

		Expect(run.consumer.Backwards()).To(BeEmpty(), "no key's revision went backwards")
		Expect(run.consumer.Anomalies()).To(BeEmpty())
		Expect(done).To(BeNumerically(">", 0))
		for _, t := range busyTypes {
			Expect(run.lists.Reasons(t.Name)).NotTo(HaveKey(syncer.ListErrors.String()), "%s: a 429 never counts toward a relist", t.Name)
		}
		Expect(run.logged.Summary()).To(ContainSubstring("Server too busy (429)"), "the syncer met them itself")
		Expect(waits).To(BeNumerically(">", 0))
		Expect(early).To(BeNumerically("<=", 0), "every retry waited at least the Retry-After of the 429 before it")
	}, NodeTimeout(5*time.Minute))
})

// busyLog is a transport wrapper that records the 429s a syncer met, by
// resource, and how long after each the next request of that resource came.
// It moves their Retry-After header into a Status body's details, as the
// apiserver's storage layer gives it: client-go's REST client, which retries
// a 429 with the header up to ten times by itself, then hands every one to
// the syncer, the details its only hint.
type busyLog struct {
	mu   sync.Mutex
	n    map[string]int
	last map[string]busyAnswer // each resource's last 429, until its next request
	// early is the most any request came before the Retry-After of the 429
	// before it had passed (negative: all came after), and waits counts them.
	early time.Duration
	waits int
}

type busyAnswer struct {
	at         time.Time
	retryAfter time.Duration
}

func (b *busyLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		res := path.Base(r.URL.Path) // a list or watch: the collection's plural
		b.requested(res)
		resp, err := rt.RoundTrip(r)
		if err == nil && resp.StatusCode == http.StatusTooManyRequests {
			secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
			b.tooMany(res, time.Duration(secs)*time.Second)
			err = asStatus(resp, secs)
		}
		return resp, err
	})
}

func (b *busyLog) requested(res string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if a, ok := b.last[res]; ok {
		early := a.retryAfter - time.Since(a.at)
		if b.waits == 0 || early > b.early {
			b.early = early
		}
		b.waits++
		delete(b.last, res)
	}
}

func (b *busyLog) tooMany(res string, retryAfter time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.n == nil {
		b.n, b.last = map[string]int{}, map[string]busyAnswer{}
	}
	b.n[res]++
	b.last[res] = busyAnswer{at: time.Now(), retryAfter: retryAfter}
}

func (b *busyLog) count(res string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.n[res]
}

func (b *busyLog) counts() map[string]int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return maps.Clone(b.n)
}

// earliest returns how many requests followed a 429 and the most any came
// before its Retry-After had passed (negative: every one waited it out).
func (b *busyLog) earliest() (int, time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.waits, b.early
}

// asStatus replaces resp's body, priority and fairness's line of text, with
// a Status of a 429 that suggests secs, and drops its Retry-After header.
func asStatus(resp *http.Response, secs int) error {
	_ = resp.Body.Close()
	st := apierrors.NewTooManyRequests("priority and fairness rejected the request", secs).ErrStatus
	st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	body, err := json.Marshal(st)
	if err != nil {
		return err
	}
	resp.Header.Del("Retry-After")
	resp.Header.Set("Content-Type", "application/json")
	resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	return nil
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// busyUser is the syncer's user, whose requests the flow schema and priority
// level busyName reject.
const (
	busyUser = "busy-agent"
	busyName = "kubesync-busy"
)

// throughBalancer is the user's config through the balancer, over HTTP/1.1.
func throughBalancer(c *orchestrate.Cluster, user *rest.Config) *rest.Config {
	cfg := rest.CopyConfig(user)
	cfg.Host = c.Balanced(true).Host
	cfg.NextProtos = []string{"http/1.1"}
	return cfg
}

// busyUntilDeleted makes priority and fairness reject the user's requests on
// every apiserver, until deleteBusy or the end of the spec: the user's flow
// schema leads to a priority level of no seats that rejects what it cannot run
// at once (429 with Retry-After), and a create of the user's whose body never
// ends holds the one request such a level still runs. It returns once each
// apiserver answers the user 429.
func busyUntilDeleted(ctx context.Context, c *orchestrate.Cluster, user *rest.Config, ns string) {
	cs, err := kubernetes.NewForConfig(c.Config())
	Expect(err).NotTo(HaveOccurred())
	pl, err := cs.FlowcontrolV1().PriorityLevelConfigurations().Create(ctx, &flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: busyName},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
				NominalConcurrencyShares: ptr.To[int32](0), LendablePercent: ptr.To[int32](0), BorrowingLimitPercent: ptr.To[int32](0),
				LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject},
			}},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	_, err = cs.FlowcontrolV1().FlowSchemas().Create(ctx, &flowcontrolv1.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: busyName},
		Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: busyName},
			MatchingPrecedence:         500,
			Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
				Subjects: []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: busyUser}}},
				ResourceRules: []flowcontrolv1.ResourcePolicyRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"},
					Namespaces: []string{"*"}, ClusterScope: true}},
			}},
		},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func(ctx SpecContext) { Expect(deleteBusy(ctx, c)).To(Succeed()) })
	for i, a := range c.Servers {
		direct := rest.CopyConfig(user)
		direct.Host = a.Config().Host
		Eventually(func() string {
			return answer(ctx, direct, ns).Header.Get(flowcontrolv1.ResponseHeaderMatchedPriorityLevelConfigurationUID)
		}).
			Should(Equal(string(pl.UID)), "%s classifies the user's requests", orchestrate.ServerName(i))
		holdSeat(direct, ns)
		Eventually(func() int { return answer(ctx, direct, ns).StatusCode }).Should(Equal(http.StatusTooManyRequests), "%s rejects the user", orchestrate.ServerName(i))
	}
}

// holdSeat sends, as cfg's user, a create whose body never ends: its handler
// waits for the rest, holding the request's seat, until the spec ends. A
// create rejected because another request of the user ran (a probe) is sent
// again.
func holdSeat(cfg *rest.Config, ns string) {
	client, err := rest.HTTPClientFor(cfg)
	Expect(err).NotTo(HaveOccurred())
	url := strings.TrimSuffix(cfg.Host, "/") + "/api/v1/namespaces/" + ns + "/configmaps"
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			body, more := io.Pipe()
			go func() { _, _ = more.Write([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"held"`)) }()
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, body)
			if err != nil {
				return
			}
			req.Header.Set("Content-Type", "application/json")
			resp, err := client.Do(req)
			_ = more.Close()
			if err != nil {
				return // the spec ended
			}
			_ = resp.Body.Close()
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	DeferCleanup(func() {
		cancel()
		<-done
	})
}

// deleteBusy deletes busyUntilDeleted's flow schema and priority level, if
// they are still there.
func deleteBusy(ctx context.Context, c *orchestrate.Cluster) error {
	cs, err := kubernetes.NewForConfig(c.Config())
	if err != nil {
		return err
	}
	fc := cs.FlowcontrolV1()
	if err := fc.FlowSchemas().Delete(ctx, busyName, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	if err := fc.PriorityLevelConfigurations().Delete(ctx, busyName, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return nil
}

// answer is the answer to one list of ns's config maps as cfg's user, asked
// once (client-go's own retries of a 429 would hide it), its body read and
// closed; a request that failed answers 0.
func answer(ctx context.Context, cfg *rest.Config, ns string) *http.Response {
	client, err := rest.HTTPClientFor(cfg)
	Expect(err).NotTo(HaveOccurred())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(cfg.Host, "/")+"/api/v1/namespaces/"+ns+"/configmaps?limit=1", nil)
	Expect(err).NotTo(HaveOccurred())
	resp, err := client.Do(req)
	if err != nil {
		return &http.Response{Header: http.Header{}}
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp
}

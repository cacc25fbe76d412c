package bench

import (
	"context"
	"fmt"
	"runtime"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesync/kubesync/internal/wire"
)

// pagedList is contender (e): a paged list that decodes each page and drops it.
// Its relist is the same list again, once the apiserver is back.
type pagedList struct {
	wl       *workload
	c        wire.Clients
	token    string
	expected int
}

func (p *pagedList) list(ctx context.Context, token string) (n, marked int, err error) {
	for _, part := range p.wl.parts() {
		opts := metav1.ListOptions{Limit: pageSize}
		for {
			k, m, cont, err := part.listPage(ctx, p.c, opts, token)
			if err != nil {
				return n, marked, err
			}
			n, marked = n+k, marked+m
			if cont == "" {
				break
			}
			opts.Continue = cont
		}
	}
	return n, marked, nil
}

func (p *pagedList) sync(ctx context.Context) (int, error) {
	n, _, err := p.list(ctx, "")
	return n, err
}

func (p *pagedList) arm(token string, expected int) { p.token, p.expected = token, expected }

func (p *pagedList) relisted(ctx context.Context) (time.Time, int, bool, error) {
	_, marked, err := p.list(ctx, p.token)
	if err != nil {
		return time.Time{}, marked, true, err
	}
	if marked < p.expected {
		return time.Time{}, marked, true, fmt.Errorf("the list held %d of %d changed objects", marked, p.expected)
	}
	return time.Now(), marked, true, nil
}

func (p *pagedList) stop() {}

// baseline is contender (f): it only builds a clientset.
type baseline struct{ cs kubernetes.Interface }

func (b *baseline) sync(context.Context) (int, error) { return 0, nil }
func (b *baseline) arm(string, int)                   {}
func (b *baseline) relisted(context.Context) (time.Time, int, bool, error) {
	return time.Now(), 0, false, nil
}
func (b *baseline) stop() { runtime.KeepAlive(b.cs) }

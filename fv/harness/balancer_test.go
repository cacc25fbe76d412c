package harness_test

import (
	"bufio"
	"net"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"go.uber.org/goleak"

	"github.com/kubesync/kubesync/fv/harness"
)

// namedServer accepts connections on loopback; each one is greeted with name
// and a newline, then echoes what it reads.
func namedServer(t *testing.T, name string) harness.Backend {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer func() { _ = c.Close() }()
				if _, err := c.Write([]byte(name + "\n")); err != nil {
					return
				}
				buf := make([]byte, 1024)
				for {
					n, err := c.Read(buf)
					if err != nil {
						return
					}
					if _, err := c.Write(buf[:n]); err != nil {
						return
					}
				}
			}()
		}
	}()
	addr := l.Addr().String()
	return harness.Backend{Name: name, Addr: func() string { return addr }}
}

// conn is one client connection through the balancer.
type conn struct {
	net.Conn
	r *bufio.Reader
}

func dial(t *testing.T, b *harness.Balancer) *conn {
	c, err := net.Dial("tcp", b.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return &conn{Conn: c, r: bufio.NewReader(c)}
}

// line reads a line, or returns "" when nothing comes within wait.
func (c *conn) line(wait time.Duration) string {
	_ = c.SetReadDeadline(time.Now().Add(wait))
	s, err := c.r.ReadString('\n')
	if err != nil {
		return ""
	}
	return s[:len(s)-1]
}

// expectClosed expects each connection to end, not merely to stay silent.
func expectClosed(g Gomega, conns ...*conn) {
	for _, c := range conns {
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err := c.r.ReadByte()
		g.Expect(err).To(HaveOccurred(), "the connection is closed")
		g.Expect(err).NotTo(MatchError(ContainSubstring("timeout")))
	}
}

func newBalancer(t *testing.T, backends ...harness.Backend) *harness.Balancer {
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, before) })
	b, err := harness.NewBalancer(backends...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func TestBalancerRoutesRoundRobinPerConnection(t *testing.T) {
	g := NewWithT(t)
	b := newBalancer(t, namedServer(t, "a"), namedServer(t, "b"), namedServer(t, "c"))
	var got []string
	for range 6 {
		got = append(got, dial(t, b).line(5*time.Second))
	}
	g.Expect(got).To(Equal([]string{"a", "b", "c", "a", "b", "c"}))
	g.Expect(b.Routed()).To(Equal(map[string]int{"a": 2, "b": 2, "c": 2}))
	g.Eventually(b.Open).Should(Equal(6))
}

func TestBalancerTakesABackendOutAndIn(t *testing.T) {
	g := NewWithT(t)
	b := newBalancer(t, namedServer(t, "a"), namedServer(t, "b"))
	kept := dial(t, b)
	g.Expect(kept.line(5 * time.Second)).To(Equal("a"))
	g.Expect(b.Out("a")).To(Succeed())
	for range 3 {
		g.Expect(dial(t, b).line(5 * time.Second)).To(Equal("b"))
	}
	// A backend taken out keeps its open connections.
	_, err := kept.Write([]byte("still here\n"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(kept.line(5 * time.Second)).To(Equal("still here"))

	g.Expect(b.In("a")).To(Succeed())
	seen := map[string]bool{}
	for range 2 {
		seen[dial(t, b).line(5*time.Second)] = true
	}
	g.Expect(seen).To(HaveKey("a"))
	g.Expect(b.Out("nobody")).To(MatchError(ContainSubstring("nobody")))
}

func TestBalancerSkipsABackendThatRefuses(t *testing.T) {
	g := NewWithT(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	g.Expect(err).NotTo(HaveOccurred())
	gone := l.Addr().String()
	g.Expect(l.Close()).To(Succeed())
	b := newBalancer(t, harness.Backend{Name: "down", Addr: func() string { return gone }}, namedServer(t, "up"))
	for range 3 {
		g.Expect(dial(t, b).line(5 * time.Second)).To(Equal("up"))
	}
	g.Expect(b.Routed()).To(Equal(map[string]int{"down": 0, "up": 3}))
}

func TestBalancerCutsEveryConnection(t *testing.T) {
	g := NewWithT(t)
	b := newBalancer(t, namedServer(t, "a"))
	c1, c2 := dial(t, b), dial(t, b)
	g.Expect(c1.line(5 * time.Second)).To(Equal("a"))
	g.Expect(c2.line(5 * time.Second)).To(Equal("a"))
	g.Expect(b.Cut()).To(Equal(2))
	expectClosed(g, c1, c2)
	g.Expect(dial(t, b).line(5*time.Second)).To(Equal("a"), "new connections go through")
}

func TestBalancerPauseHoldsEverythingUntilResume(t *testing.T) {
	g := NewWithT(t)
	b := newBalancer(t, namedServer(t, "a"))
	open := dial(t, b)
	g.Expect(open.line(5 * time.Second)).To(Equal("a"))
	b.Pause()
	_, err := open.Write([]byte("held\n"))
	g.Expect(err).NotTo(HaveOccurred())
	fresh := dial(t, b)
	g.Expect(open.line(300*time.Millisecond)).To(BeEmpty(), "nothing forwarded while paused")
	g.Expect(fresh.line(300*time.Millisecond)).To(BeEmpty(), "a new connection is held")
	g.Expect(b.Routed()["a"]).To(Equal(1))

	b.Resume()
	g.Expect(open.line(5 * time.Second)).To(Equal("held"))
	g.Expect(fresh.line(5 * time.Second)).To(Equal("a"))
}

func TestBalancerCloseEndsEverything(t *testing.T) {
	g := NewWithT(t)
	b := newBalancer(t, namedServer(t, "a"))
	c := dial(t, b)
	g.Expect(c.line(5 * time.Second)).To(Equal("a"))
	b.Pause()
	held := dial(t, b)
	g.Expect(b.Close()).To(Succeed())
	g.Expect(b.Close()).To(Succeed())
	g.Expect(b.Open()).To(BeZero())
	expectClosed(g, c, held)
	_, err := net.DialTimeout("tcp", b.Addr(), time.Second)
	g.Expect(err).To(HaveOccurred(), "it no longer accepts")
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metricsServer serves reg's metrics at /metrics.
type metricsServer struct {
	srv  *http.Server
	addr net.Addr
	done chan struct{}
}

// serveMetrics listens on addr at once, so that a bad address fails the command
// before it starts watching, and serves in the background. onErr hears of a
// failure to serve later on; the watch goes on without metrics.
func serveMetrics(addr string, reg *prometheus.Registry, onErr func(error)) (*metricsServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics server: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	m := &metricsServer{
		srv:  &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second},
		addr: ln.Addr(),
		done: make(chan struct{}),
	}
	go func() {
		defer close(m.done)
		if err := m.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			onErr(fmt.Errorf("metrics server: %w", err))
		}
	}()
	return m, nil
}

// checkListenAddr checks that addr has the form HOST:PORT (HOST may be empty)
// with a port number, without resolving or listening.
func checkListenAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not HOST:PORT, e.g. :9090 or 127.0.0.1:9090", addr)
	}
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || (n == 0 && port != "0") {
		return fmt.Errorf("%q has no port number from 0 to 65535", addr)
	}
	return nil
}

// URL is where the metrics are served.
func (m *metricsServer) URL() string { return "http://" + m.addr.String() + "/metrics" }

// Close stops the server and waits for it.
func (m *metricsServer) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := m.srv.Shutdown(ctx); err != nil {
		_ = m.srv.Close()
	}
	<-m.done
}

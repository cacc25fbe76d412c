package wire_test

import (
	"bytes"
	stdgzip "compress/gzip"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kubesync/kubesync/internal/wire"
)

// gzipServer answers every request with the events it is sent, one gzip flush
// each, as the apiserver writes a watch, when the request accepts gzip; plainly
// otherwise.
func gzipServer(events <-chan string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept-Encoding") != "gzip" {
			_, _ = io.WriteString(w, "plain:"+r.Header.Get("Accept-Encoding"))
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		zw := stdgzip.NewWriter(w)
		for e := range events {
			_, _ = io.WriteString(zw, e)
			_ = zw.Flush()
			w.(http.Flusher).Flush()
		}
		_ = zw.Close()
	}))
}

var _ = Describe("GzipDecoding", func() {
	client := func() *http.Client { return &http.Client{Transport: wire.GzipDecoding{Next: http.DefaultTransport}} }

	It("un-gzips a stream event by event, before it ends, and a Close ends a Read blocked on it", func() {
		events := make(chan string, 1)
		srv := gzipServer(events)
		defer srv.Close()
		defer close(events)
		resp, err := client().Get(srv.URL)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Uncompressed).To(BeTrue())
		Expect(resp.Header.Get("Content-Encoding")).To(BeEmpty())

		for _, e := range []string{"first event;", "second event;"} {
			events <- e
			buf := make([]byte, len(e))
			_, err := io.ReadFull(resp.Body, buf)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(buf)).To(Equal(e), "read as soon as it was flushed")
		}
		read := make(chan error, 1)
		go func() {
			_, err := resp.Body.Read(make([]byte, 8))
			read <- err
		}()
		Consistently(read, "50ms").ShouldNot(Receive(), "nothing more was sent")
		Expect(resp.Body.Close()).To(Succeed())
		Eventually(read).Should(Receive(HaveOccurred()), "the Close ended the Read")
	})

	It("leaves a request that names its own encoding, and its response, as they are", func() {
		srv := gzipServer(nil)
		defer srv.Close()
		req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Accept-Encoding", "identity")
		resp, err := client().Do(req)
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(body)).To(Equal("plain:identity"))
	})

	It("fails a Read, every Read, on a body that is not gzip", func() {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = io.WriteString(w, "not gzip at all")
		}))
		defer srv.Close()
		resp, err := client().Get(srv.URL)
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		_, err = resp.Body.Read(make([]byte, 8))
		Expect(err).To(HaveOccurred())
		_, again := resp.Body.Read(make([]byte, 8))
		Expect(again).To(MatchError(err))
	})
})

// BenchmarkGunzip un-gzips 2,000 ConfigMap-like objects (1 KiB of random text
// each, as make bench's) with the standard library's decoder and with the one
// GzipDecoding uses.
func BenchmarkGunzip(b *testing.B) {
	var raw bytes.Buffer
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/"
	for i := range 2000 {
		r := rand.New(rand.NewPCG(uint64(i), 7))
		raw.WriteString("\x0a\x9a\x01\x0a\x10configmap-042123\x1a\x0cbench-cm-042\x22\x245f0c1234-9a1e-4b2c-8d3e-0123456789ab")
		for range 1024 {
			raw.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
	}
	var z bytes.Buffer
	zw := stdgzip.NewWriter(&z)
	_, _ = zw.Write(raw.Bytes())
	_ = zw.Close()
	for _, c := range []struct {
		name   string
		reader func(io.Reader) (io.Reader, error)
	}{
		{"compress-gzip", func(r io.Reader) (io.Reader, error) { return stdgzip.NewReader(r) }},
		{"GzipDecoding", func(r io.Reader) (io.Reader, error) { return wire.GunzipBody(r), nil }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(raw.Len()))
			for b.Loop() {
				// A body, as an HTTP response's: not an io.ByteReader.
				zr, err := c.reader(io.NopCloser(bytes.NewReader(z.Bytes())))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, zr); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

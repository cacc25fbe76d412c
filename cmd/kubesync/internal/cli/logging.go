package cli

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"sync"

	"github.com/sirupsen/logrus"

	"github.com/kubesync/kubesync/cmd/kubesync/internal/progress"
)

// newLogger returns the syncer's logger: entries at level or above are printed on
// the console, and, whatever the level, the error of the last warning is kept to
// explain a failure to connect.
func newLogger(console *progress.Console, level logrus.Level) (*logrus.Logger, *lastError) {
	log := logrus.New()
	log.SetOutput(io.Discard) // the hooks print
	log.SetLevel(max(level, logrus.WarnLevel))
	last := &lastError{untrusted: make(chan struct{})}
	log.AddHook(last)
	log.AddHook(&printHook{
		levels:    logrus.AllLevels[:level+1],
		w:         console.Writer(),
		formatter: &logrus.TextFormatter{DisableColors: true, FullTimestamp: true},
	})
	return log, last
}

// printHook prints entries of its levels to w.
type printHook struct {
	levels    []logrus.Level
	w         io.Writer
	formatter logrus.Formatter
}

func (h *printHook) Levels() []logrus.Level { return h.levels }

func (h *printHook) Fire(e *logrus.Entry) error {
	b, err := h.formatter.Format(e)
	if err != nil {
		return err
	}
	_, err = h.w.Write(b)
	return err
}

// lastError is a logrus hook that keeps the error of the last warning or worse,
// and tells of the first that is a failed certificate check: no retry mends
// that.
type lastError struct {
	mu        sync.Mutex
	err       error
	untrusted chan struct{} // closed at the first certificate error
	told      bool          // untrusted is closed
}

func (h *lastError) Levels() []logrus.Level { return logrus.AllLevels[:logrus.WarnLevel+1] }

func (h *lastError) Fire(e *logrus.Entry) error {
	if err, ok := e.Data[logrus.ErrorKey].(error); ok {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.err = err
		if isCertError(err) && !h.told {
			h.told = true
			close(h.untrusted)
		}
	}
	return nil
}

// Untrusted is closed when the apiserver's certificate failed verification.
func (h *lastError) Untrusted() <-chan struct{} { return h.untrusted }

// isCertError reports whether err is a failed check of the server's
// certificate.
func isCertError(err error) bool {
	var (
		unknown  x509.UnknownAuthorityError
		invalid  x509.CertificateInvalidError
		hostname x509.HostnameError
		verify   *tls.CertificateVerificationError
	)
	return errors.As(err, &unknown) || errors.As(err, &invalid) || errors.As(err, &hostname) || errors.As(err, &verify)
}

// Err returns the last error logged, or nil.
func (h *lastError) Err() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

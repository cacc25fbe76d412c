package logbridge_test

import (
	"bytes"
	"errors"
	"log/slog"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sirupsen/logrus"

	"github.com/kubesync/kubesync/internal/logbridge"
)

var _ = Describe("New", func() {
	It("hands each entry to the slog handler: level, message, fields sorted, the error", func() {
		var out bytes.Buffer
		log := logbridge.New(slog.NewTextHandler(&out, &slog.HandlerOptions{
			ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey {
					return slog.Attr{}
				}
				return a
			},
		}))
		log.WithFields(logrus.Fields{"type": "pods", "delay": 3}).WithError(errors.New("refused")).Warn("Retrying")
		log.Debug("Below the handler's level")
		log.WithField("type", "nodes").Info("Listing")
		Expect(out.String()).To(Equal(
			"level=WARN msg=Retrying delay=3 error=refused type=pods\n" +
				"level=INFO msg=Listing type=nodes\n"))
	})

	It("follows a handler whose level changes", func() {
		var out bytes.Buffer
		var lvl slog.LevelVar
		lvl.Set(slog.LevelInfo)
		log := logbridge.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: &lvl}))
		log.Debug("hidden")
		lvl.Set(slog.LevelDebug)
		log.Debug("shown")
		Expect(out.String()).NotTo(ContainSubstring("hidden"))
		Expect(out.String()).To(ContainSubstring("msg=shown"))
	})

	It("maps every logrus level", func() {
		Expect(logbridge.Level(logrus.TraceLevel)).To(BeNumerically("<", slog.LevelDebug))
		Expect(logbridge.Level(logrus.DebugLevel)).To(Equal(slog.LevelDebug))
		Expect(logbridge.Level(logrus.InfoLevel)).To(Equal(slog.LevelInfo))
		Expect(logbridge.Level(logrus.WarnLevel)).To(Equal(slog.LevelWarn))
		Expect(logbridge.Level(logrus.ErrorLevel)).To(Equal(slog.LevelError))
		Expect(logbridge.Level(logrus.FatalLevel)).To(BeNumerically(">", slog.LevelError))
		Expect(logbridge.Level(logrus.PanicLevel)).To(BeNumerically(">", logbridge.Level(logrus.FatalLevel)))
	})
})

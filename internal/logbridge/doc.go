// Package logbridge hands what kubesync logs through logrus to a log/slog
// handler, so that an embedder that logs with slog gets kubesync's lines there
// (syncer.WithSlog, checkpoint.WithSlog) while the library's call sites keep
// logrus, its default.
package logbridge

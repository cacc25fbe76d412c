package wire

import (
	"io"

	"github.com/klauspost/compress/gzip"
)

// GunzipReader is the decoder GzipDecoding reads a body with.
func GunzipReader(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) }

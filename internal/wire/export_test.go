package wire

import "io"

// GunzipBody reads r as GzipDecoding reads a gzipped response body.
func GunzipBody(r io.Reader) io.Reader { return &gunzipBody{body: io.NopCloser(r)} }

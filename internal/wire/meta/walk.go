package meta

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

var errTruncated = errors.New("meta: truncated message")

// fields calls fn with each field of a protobuf message. For a length-delimited
// field, v holds its bytes (a sub-slice of msg, not a copy); other fields are
// skipped. fn returns false to stop early.
func fields(msg []byte, fn func(num protowire.Number, v []byte) bool) error {
	for len(msg) > 0 {
		num, typ, n := protowire.ConsumeTag(msg)
		if n < 0 {
			return fmt.Errorf("meta: tag: %w", protowire.ParseError(n))
		}
		msg = msg[n:]
		if typ != protowire.BytesType {
			n = protowire.ConsumeFieldValue(num, typ, msg)
			if n < 0 {
				return fmt.Errorf("meta: field %d: %w", num, protowire.ParseError(n))
			}
			msg = msg[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(msg)
		if n < 0 {
			return fmt.Errorf("meta: field %d: %w", num, errTruncated)
		}
		msg = msg[n:]
		if !fn(num, v) {
			return nil
		}
	}
	return nil
}

package meta

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// metaManagedFields is ObjectMeta's managedFields (generated.proto).
const metaManagedFields = 17

// StripManagedFields returns a copy of a protobuf-encoded object (the message,
// without envelope) whose ObjectMeta has no managed fields. The copy is exactly
// as long as what it holds, and shares nothing with obj, so keeping it pins
// neither obj nor the page it came in. Fields keep their order, so the copy
// decodes to the object obj decodes to, managed fields cleared.
func StripManagedFields(obj []byte) ([]byte, error) {
	// First pass: where ObjectMeta is and how much of it stays.
	metaStart, metaEnd, kept := -1, -1, 0
	var meta []byte
	for off := 0; off < len(obj); {
		num, typ, n := protowire.ConsumeTag(obj[off:])
		if n < 0 {
			return nil, fmt.Errorf("meta: tag: %w", protowire.ParseError(n))
		}
		m := protowire.ConsumeFieldValue(num, typ, obj[off+n:])
		if m < 0 {
			return nil, fmt.Errorf("meta: field %d: %w", num, protowire.ParseError(m))
		}
		if num == objMetadata && typ == protowire.BytesType && metaStart < 0 {
			meta, _ = protowire.ConsumeBytes(obj[off+n:])
			metaStart, metaEnd = off, off+n+m
			if err := metaFields(meta, func(num protowire.Number, field []byte) {
				if num != metaManagedFields {
					kept += len(field)
				}
			}); err != nil {
				return nil, err
			}
		}
		off += n + m
	}
	if metaStart < 0 || kept == len(meta) {
		return append([]byte(nil), obj...), nil
	}
	// Second pass: the copy, ObjectMeta rewritten without field 17.
	size := metaStart + protowire.SizeTag(objMetadata) + protowire.SizeBytes(kept) + len(obj) - metaEnd
	out := make([]byte, 0, size)
	out = append(out, obj[:metaStart]...)
	out = protowire.AppendTag(out, objMetadata, protowire.BytesType)
	out = protowire.AppendVarint(out, uint64(kept))
	_ = metaFields(meta, func(num protowire.Number, field []byte) {
		if num != metaManagedFields {
			out = append(out, field...)
		}
	})
	return append(out, obj[metaEnd:]...), nil
}

// metaFields calls fn with each field of msg, tag included, as a sub-slice of msg.
func metaFields(msg []byte, fn func(num protowire.Number, field []byte)) error {
	for off := 0; off < len(msg); {
		num, typ, n := protowire.ConsumeTag(msg[off:])
		if n < 0 {
			return fmt.Errorf("meta: metadata tag: %w", protowire.ParseError(n))
		}
		m := protowire.ConsumeFieldValue(num, typ, msg[off+n:])
		if m < 0 {
			return fmt.Errorf("meta: metadata field %d: %w", num, protowire.ParseError(m))
		}
		fn(num, msg[off:off+n+m])
		off += n + m
	}
	return nil
}

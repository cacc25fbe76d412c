package syncer

import (
	"bytes"
	"runtime"
	"strconv"
)

// goroutineID is the runtime's number of the calling goroutine. Stop uses it for one
// question only: is it called from inside a callback, where waiting for the
// callback to return would deadlock? Go offers no other way to tell.
func goroutineID() uint64 {
	var buf [32]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, _ := strconv.ParseUint(string(b), 10, 64)
	return id
}

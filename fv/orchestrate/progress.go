package orchestrate

import (
	"fmt"
	"io"
	"time"
)

// Logf returns a printf that writes one line to w, after the time of day; a nil
// w discards the lines.
func Logf(w io.Writer) func(format string, args ...any) {
	if w == nil {
		w = io.Discard
	}
	return func(format string, args ...any) {
		fmt.Fprintf(w, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
	}
}

package orchestrate

import (
	"context"
	"fmt"
	"time"
)

// Every calls its function until the context ends, here from the third call.
func ExampleEvery() {
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	Every(ctx, time.Millisecond, func() {
		if calls++; calls == 3 {
			cancel()
		}
	})
	fmt.Println(calls, "calls")
	// Output: 3 calls
}

package syncertest_test

import (
	"errors"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

var errBad = errors.New("bad")

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

// fastBackoff makes retries take milliseconds.
var fastBackoff = wait.Backoff{Duration: 5 * time.Millisecond, Factor: 2, Cap: 50 * time.Millisecond, Steps: 1 << 30}

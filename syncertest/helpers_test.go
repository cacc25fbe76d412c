package syncertest_test

import (
	"errors"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/util/wait"
)

var errBad = errors.New("bad")

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

// fastBackoff makes retries take milliseconds.
var fastBackoff = wait.Backoff{Duration: 5 * time.Millisecond, Factor: 2, Cap: 50 * time.Millisecond, Steps: 1 << 30}

// must returns v, failing the spec on err.
func must[T any](v T, err error) T {
	GinkgoHelper()
	Expect(err).NotTo(HaveOccurred())
	return v
}

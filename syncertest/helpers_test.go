package syncertest_test

import (
	"errors"
	"strconv"
)

var errBad = errors.New("bad")

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

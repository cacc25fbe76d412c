package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// Message is what a contender writes on its stdout, one JSON object a line.
type Message struct {
	// Type is "synced", "armed", "relisted", "phase" (kube-rs-shaped) or "error".
	Type string `json:"type"`

	// synced
	Objects     int     `json:"objects,omitempty"`
	SyncSeconds float64 `json:"sync_seconds,omitempty"`
	Memory      Memory  `json:"memory"`
	GOGC        int     `json:"gogc,omitempty"`
	// SyncCPU is the user plus system CPU seconds the process spent from the
	// start of the sync to InSync; BytesRead what it read meanwhile (rchar).
	SyncCPU   float64 `json:"sync_cpu,omitempty"`
	BytesRead uint64  `json:"bytes_read,omitempty"`
	// HeapBefore is the live heap (HeapAlloc after a GC) just before the sync
	// started: Memory.HeapAlloc less it is what the sync left on the heap.
	HeapBefore uint64 `json:"heap_before,omitempty"`
	// Samples are the RSS and CPU readings of the phase, every 100 ms.
	Samples []Sample `json:"samples,omitempty"`

	// relisted
	RelistSeconds float64 `json:"relist_seconds,omitempty"`
	RelistPeakRSS uint64  `json:"relist_peak_rss,omitempty"`
	Changed       int     `json:"changed,omitempty"`
	// RelistCPU is the CPU seconds from the arm to being in sync again;
	// RelistBytesRead what the process read meanwhile (rchar).
	RelistCPU       float64 `json:"relist_cpu,omitempty"`
	RelistBytesRead uint64  `json:"relist_bytes_read,omitempty"`
	// Relisted says the contender saw a relist happen: kubesync's Observer heard
	// a type start a list after the relist was armed. Informers and the paged list always relist: the changed objects
	// can reach them by no other way.
	Relisted bool `json:"relisted,omitempty"`

	Error string `json:"error,omitempty"`

	// Fanout is a fan-out contender's result, with "synced".
	Fanout *FanoutResult `json:"fanout,omitempty"`

	// Phase is a kube-rs-shaped contender's phase, with "phase" and "relisted".
	Phase *Phase `json:"phase,omitempty"`
}

// Command is what the orchestrator writes on a contender's stdin.
type Command struct {
	// Type is "relist" (reset the peak RSS, start counting CPU and watch for
	// Expected objects that carry MarkAnnotation=Token), "ready" (the relist was
	// triggered at StartedAt, Unix nanoseconds: the watches expired) or "exit".
	Type      string `json:"type"`
	Token     string `json:"token,omitempty"`
	Expected  int    `json:"expected,omitempty"`
	StartedAt int64  `json:"started_at,omitempty"`
	ReadyAt   int64  `json:"ready_at,omitempty"`
	// Objects is what a kube-rs-shaped contender holds once a "churn" (the
	// steady phase: Expected updates marked with Token, and deletes) is done.
	Objects int `json:"objects,omitempty"`
}

// lineWriter writes JSON lines, safe for concurrent use.
type lineWriter struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func newLineWriter(w io.Writer) *lineWriter { return &lineWriter{enc: json.NewEncoder(w)} }

func (l *lineWriter) write(v any) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.enc.Encode(v)
}

// readLines decodes JSON lines from r into a channel of T, closed at EOF or on the
// first malformed line (reported on errs).
func readLines[T any](r io.Reader, errs chan<- error) <-chan T {
	out := make(chan T)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			var v T
			if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
				if errs != nil {
					errs <- fmt.Errorf("malformed line %q: %w", sc.Text(), err)
				}
				return
			}
			out <- v
		}
		if err := sc.Err(); err != nil && errs != nil {
			errs <- err
		}
	}()
	return out
}

package output

import (
	"bufio"
	"encoding/json"
	"io"

	"github.com/kubesync/kubesync/cmd/kubesync/internal/progress"
	"github.com/kubesync/kubesync/syncer"
)

// JSON prints one Record per line. Build it with NewJSON.
type JSON struct {
	w      *bufio.Writer
	enc    *json.Encoder
	values bool
	types  func() []progress.TypeState
}

// JSONOption configures a JSON printer.
type JSONOption func(*JSON)

// WithValues includes each update's converted value in its record.
func WithValues(on bool) JSONOption { return func(j *JSON) { j.values = on } }

// WithTypes counts the types of types() in each InSync record, and gives each
// status record their freshness.
func WithTypes(types func() []progress.TypeState) JSONOption {
	return func(j *JSON) { j.types = types }
}

// NewJSON prints to w.
func NewJSON(w io.Writer, opts ...JSONOption) *JSON {
	bw := bufio.NewWriterSize(w, 64<<10)
	j := &JSON{w: bw, enc: json.NewEncoder(bw)}
	j.enc.SetEscapeHTML(false)
	for _, o := range opts {
		o(j)
	}
	return j
}

var (
	_ syncer.Callbacks           = (*JSON)(nil)
	_ syncer.ParseFailureHandler = (*JSON)(nil)
	_ syncer.SyncFailureHandler  = (*JSON)(nil)
)

// OnUpdates prints one record per update.
func (j *JSON) OnUpdates(updates []syncer.Update) {
	for _, u := range updates {
		var value json.RawMessage
		if j.values && u.UpdateType != syncer.KVDeleted && u.Value != nil {
			raw, err := json.Marshal(u.Value)
			if err != nil {
				raw, _ = json.Marshal(map[string]string{"error": "value not printable: " + err.Error()})
			}
			value = raw
		}
		j.write(UpdateRecord(u, value))
	}
	j.flush()
}

// OnStatusUpdated prints a status record.
func (j *JSON) OnStatusUpdated(status syncer.SyncStatus) {
	var types []progress.TypeState
	if j.types != nil {
		types = j.types()
	}
	r := StatusRecord(status, progress.Summarize(types))
	r.Freshness = FreshnessOf(types)
	j.write(r)
	j.flush()
}

// OnSyncRecovered prints a syncRecovered record.
func (j *JSON) OnSyncRecovered(typeName string) {
	j.write(Record{SyncRecovered: typeName})
	j.flush()
}

// OnSyncFailed prints a syncFailed record.
func (j *JSON) OnSyncFailed(typeName string, err error) {
	j.write(SyncFailedRecord(typeName, err))
	j.flush()
}

// OnParseFailed prints a parseFailed record.
func (j *JSON) OnParseFailed(typeName string, object any, err error) {
	j.write(ParseFailedRecord(typeName, object, err))
	j.flush()
}

// write encodes r; an error can only come from the destination, which a Guard
// reports.
func (j *JSON) write(r Record) { _ = j.enc.Encode(r) }

func (j *JSON) flush() { _ = j.w.Flush() }

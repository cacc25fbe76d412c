package output

import (
	"encoding/json"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/kubesync/kubesync/cmd/kubesync/internal/progress"
	"github.com/kubesync/kubesync/syncer"
)

// Record is one line of JSON output. Exactly one of Type, Status, SyncFailed and
// ParseFailed is set, and says what the line is:
//
//	{"type":"New","key":"Pod/default/web","kind":"Pod","namespace":"default","name":"web","revision":"1234","uid":"…"}
//	{"type":"Deleted","key":"Node/n1","kind":"Node","name":"n1","revision":"1240"}
//	{"status":"InSync","types":17,"typesInSync":2,"failing":{"forbidden":15},"freshness":{"nodes":{"revision":"1234","ageSeconds":0.2},…}}
//	{"syncFailed":"pods","reason":"forbidden","error":"…"}
//	{"syncRecovered":"pods"}
//	{"parseFailed":"pods","namespace":"default","name":"web","error":"…"}
//
// Empty fields are left out (namespace for cluster-scoped keys, value unless
// values were asked for). A Deleted record carries the uid of the object that
// was deleted.
type Record struct {
	// Type is the update: "New", "Updated" or "Deleted".
	Type      string `json:"type,omitempty"`
	Key       string `json:"key,omitempty"`
	Kind      string `json:"kind,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
	// Revision is the object's resourceVersion; for a deletion, the revision at
	// which it was deleted, when known.
	Revision string `json:"revision,omitempty"`
	UID      string `json:"uid,omitempty"`
	// Value is the converted value, for New and Updated, with WithValues.
	Value json.RawMessage `json:"value,omitempty"`

	// Status is the syncer's new status: "WaitForDatastore", "ResyncInProgress"
	// or "InSync". InSync means every type has either listed or failed: an
	// InSync record also counts the types, those in sync, and the failing ones
	// by reason, which are missing from the data.
	Status      string         `json:"status,omitempty"`
	Types       int            `json:"types,omitempty"`
	TypesInSync *int           `json:"typesInSync,omitempty"`
	Failing     map[string]int `json:"failing,omitempty"`
	// Freshness is, in a status record, each type's last confirmed revision
	// and its age, for the types that confirmed one.
	Freshness map[string]Freshness `json:"freshness,omitempty"`

	// SyncFailed names a type that cannot be synced now; Reason says why:
	// "forbidden", "unauthorized", "notServed", "unreachable" or "other". The type is retried and
	// the others go on.
	SyncFailed string `json:"syncFailed,omitempty"`
	Reason     string `json:"reason,omitempty"`
	// SyncRecovered names a type that failed and lists again.
	SyncRecovered string `json:"syncRecovered,omitempty"`
	// ParseFailed names the type of an object that failed conversion and was
	// skipped; Namespace and Name identify the object when it has metadata.
	ParseFailed string `json:"parseFailed,omitempty"`
	Error       string `json:"error,omitempty"`
}

// Freshness is how fresh one type's view is: the last revision its stream
// confirmed, and how many seconds ago.
type Freshness struct {
	Revision   string  `json:"revision"`
	AgeSeconds float64 `json:"ageSeconds"`
}

// FreshnessOf is the freshness of each type of states that confirmed a
// revision; nil if none did.
func FreshnessOf(states []progress.TypeState) map[string]Freshness {
	var out map[string]Freshness
	for _, st := range states {
		if st.Confirmed.IsZero() {
			continue
		}
		if out == nil {
			out = map[string]Freshness{}
		}
		out[st.Name] = Freshness{Revision: st.Revision, AgeSeconds: st.Age.Round(time.Millisecond).Seconds()}
	}
	return out
}

// UpdateRecord is the record of one update; value is nil unless values are asked
// for.
func UpdateRecord(u syncer.Update, value json.RawMessage) Record {
	return Record{
		Type:      u.UpdateType.String(),
		Key:       u.Key.String(),
		Kind:      u.Key.Kind,
		Namespace: u.Key.Namespace,
		Name:      u.Key.Name,
		Revision:  u.Revision,
		UID:       string(u.UID),
		Value:     value,
	}
}

// StatusRecord is the record of a status change; with InSync, sum counts the
// types.
func StatusRecord(status syncer.SyncStatus, sum progress.Summary) Record {
	r := Record{Status: status.String()}
	if status == syncer.InSync && sum.Types > 0 {
		inSync := sum.InSync
		r.Types, r.TypesInSync = sum.Types, &inSync
		for why, n := range sum.Failing {
			if r.Failing == nil {
				r.Failing = map[string]int{}
			}
			r.Failing[reasonOf[why]] += n
		}
	}
	return r
}

// reasonOf maps the failures a progress.Tracker records, in words, to the
// reasons of syncFailed records.
var reasonOf = map[string]string{
	"forbidden": "forbidden", "unauthorized": "unauthorized", "not served": "notServed", "unreachable": "unreachable",
	"failing": "other",
}

// SyncFailedRecord is the record of a type that cannot be synced.
func SyncFailedRecord(typeName string, err error) Record {
	return Record{SyncFailed: typeName, Reason: Reason(err), Error: errString(err)}
}

// ParseFailedRecord is the record of an object that failed conversion.
func ParseFailedRecord(typeName string, object any, err error) Record {
	r := Record{ParseFailed: typeName, Error: errString(err)}
	if m, merr := meta.Accessor(object); merr == nil {
		r.Namespace, r.Name = m.GetNamespace(), m.GetName()
	}
	return r
}

// Reason classifies why a type cannot be synced, as syncer.FailureOf does, in
// the words of the JSON records.
func Reason(err error) string {
	switch syncer.FailureOf(err) {
	case syncer.Forbidden:
		return "forbidden"
	case syncer.Unauthorized:
		return "unauthorized"
	case syncer.Missing:
		return "notServed"
	case syncer.Unreachable:
		return "unreachable"
	}
	return "other"
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

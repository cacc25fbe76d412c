package checkpoint

import (
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"slices"

	bolt "go.etcd.io/bbolt"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// SetFormatForTest lets a spec write a checkpoint of another format.
func SetFormatForTest(s *Store, v int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hdr.Format, s.hdrDirty = v, true
}

// PendingForTest is the number of types with changes not yet written, once a write
// under way has finished.
func PendingForTest(s *Store) int {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending)
}

// DowngradeForTest rewrites the checkpoint at path as format 1 wrote it: its
// header says format 1 and every binary record is JSON.
func DowngradeForTest(path string) error {
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	return db.Update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		js, _ := unseal(meta.Get(keyHeader))
		var h header
		if err := json.Unmarshal(js, &h); err != nil {
			return err
		}
		h.Format = 1
		if js, err = json.Marshal(h); err != nil {
			return err
		}
		if err := meta.Put(keyHeader, seal(js)); err != nil {
			return err
		}
		return forEachRecord(tx, func(objs *bolt.Bucket, k, v []byte) error {
			if v[4] != codecBinary {
				return nil
			}
			po, err := decoder{}.decodeRecord(v)
			if err != nil {
				return err
			}
			rev := po.Revision
			js, err := po.Object.(*unstructured.Unstructured).MarshalJSON()
			if err != nil {
				return err
			}
			rec := append([]byte{0, 0, 0, 0, codecJSON}, binary.AppendUvarint(nil, uint64(len(rev)))...)
			rec = append(append(rec, rev...), js...)
			binary.LittleEndian.PutUint32(rec, crc32.Checksum(rec[4:], crcTable))
			return objs.Put(slices.Clone(k), rec)
		})
	})
}

// FileFormatForTest is the format the header at path says, and how many records
// of each codec the file holds.
func FileFormatForTest(path string) (format int, codecs map[string]int, err error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		return 0, nil, err
	}
	defer func() { _ = db.Close() }()
	codecs = map[string]int{}
	err = db.View(func(tx *bolt.Tx) error {
		js, _ := unseal(tx.Bucket(bucketMeta).Get(keyHeader))
		var h header
		if err := json.Unmarshal(js, &h); err != nil {
			return err
		}
		format = h.Format
		return forEachRecord(tx, func(_ *bolt.Bucket, _, v []byte) error {
			codecs[string(v[4:5])]++
			return nil
		})
	})
	return format, codecs, err
}

func forEachRecord(tx *bolt.Tx, fn func(objs *bolt.Bucket, k, v []byte) error) error {
	return tx.Bucket(bucketTypes).ForEachBucket(func(name []byte) error {
		objs := tx.Bucket(bucketTypes).Bucket(name).Bucket(bucketObjects)
		if objs == nil {
			return nil
		}
		var keys [][]byte
		if err := objs.ForEach(func(k, _ []byte) error { keys = append(keys, slices.Clone(k)); return nil }); err != nil {
			return err
		}
		for _, k := range keys {
			if err := fn(objs, k, slices.Clone(objs.Get(k))); err != nil {
				return err
			}
		}
		return nil
	})
}

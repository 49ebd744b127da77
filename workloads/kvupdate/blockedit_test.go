package kvupdate

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/minio/highwayhash"
)

// The filestore's message record, as nats-server v2.15.3 writes it
// (server/filestore.go, msgBlock.writeMsgRecordLocked):
//
//	total_len(4) seq(8) ts(8) subj_len(2) subj [hdr_len(4) hdr] msg hash(8)
//
// with the high bit of total_len set when there are headers and the high
// bit of seq set on an erased record. hash is HighwayHash-64 over seq, ts,
// subj, hdr and msg, keyed by sha256("<stream>-<block index>")
// (fileStore.hashKeyForBlock).
const (
	recHdrSize  = 22
	recHashSize = 8
	recHdrBit   = 1 << 31
	recEraseBit = 1 << 63
)

type blockRecord struct {
	off, size int // where the record is in the block, and its length
	seq       uint64
	subj      string
	hasHdr    bool
	hdr       []byte // the message's headers (KV updates carry the expected sequence)
	msgOff    int    // offset of msg within the block
	msgLen    int
}

// parseBlock lists the records of a message block.
func parseBlock(buf []byte) ([]blockRecord, error) {
	le := binary.LittleEndian
	var out []blockRecord
	for off := 0; off < len(buf); {
		if len(buf)-off < recHdrSize {
			return out, fmt.Errorf("torn record at %d", off)
		}
		l := le.Uint32(buf[off:])
		hasHdr := l&recHdrBit != 0
		rl := int(l &^ recHdrBit)
		if rl < recHdrSize+recHashSize || off+rl > len(buf) {
			return out, fmt.Errorf("bad record length %d at %d", rl, off)
		}
		r := blockRecord{off: off, size: rl, seq: le.Uint64(buf[off+4:]), hasHdr: hasHdr}
		sl := int(le.Uint16(buf[off+20:]))
		p := off + recHdrSize
		r.subj = string(buf[p : p+sl])
		p += sl
		if hasHdr {
			hl := int(le.Uint32(buf[p:]))
			r.hdr = buf[p+4 : p+4+hl]
			p += 4 + hl
		}
		r.msgOff, r.msgLen = p, off+rl-recHashSize-p
		out = append(out, r)
		off += rl
	}
	return out, nil
}

// rehash recomputes a record's checksum in place.
func rehash(buf []byte, r blockRecord, stream string, index int) {
	key := sha256.Sum256([]byte(fmt.Sprintf("%s-%d", stream, index)))
	hh, err := highwayhash.New64(key[:])
	if err != nil {
		panic(err)
	}
	off := r.off
	sl := int(binary.LittleEndian.Uint16(buf[off+20:]))
	hh.Write(buf[off+4 : off+20])
	hh.Write(buf[off+recHdrSize : off+recHdrSize+sl])
	p := off + recHdrSize + sl
	if r.hasHdr {
		hl := int(binary.LittleEndian.Uint32(buf[p:]))
		hh.Write(buf[p+4 : p+4+hl])
	}
	hh.Write(buf[r.msgOff : r.msgOff+r.msgLen])
	copy(buf[off+r.size-recHashSize:off+r.size], hh.Sum(nil))
}

// newestBlock is the stream's message block with the highest index.
func newestBlock(storeDir, stream string) (string, int, error) {
	msgs := filepath.Join(storeDir, "jetstream", "$G", "streams", stream, "msgs")
	files, err := filepath.Glob(filepath.Join(msgs, "*.blk"))
	if err != nil || len(files) == 0 {
		return "", 0, fmt.Errorf("no message blocks in %s (%v)", msgs, err)
	}
	best, bestIdx := "", -1
	for _, f := range files {
		n, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(f), ".blk"))
		if err == nil && n > bestIdx {
			best, bestIdx = f, n
		}
	}
	return best, bestIdx, nil
}

// editNewestValue changes, in the newest block of stream under storeDir,
// the value of the newest live record (the newest of its subject) that is
// a value (no KV-Operation header) and not the block's last record (whose checksum the
// block's index also keeps), to a value nobody wrote of the same length,
// and recomputes its checksum: a change the server cannot detect. It
// returns the record's sequence and the new value.
func editNewestValue(storeDir, stream string) (uint64, string, error) {
	path, index, err := newestBlock(storeDir, stream)
	if err != nil {
		return 0, "", err
	}
	buf, err := os.ReadFile(path)
	if err != nil {
		return 0, "", err
	}
	recs, err := parseBlock(buf)
	if err != nil {
		return 0, "", fmt.Errorf("%s: %w", path, err)
	}
	newest := map[string]int{} // subject -> index of its newest record
	for i, r := range recs {
		if r.seq&recEraseBit == 0 {
			newest[r.subj] = i
		}
	}
	var cands []int
	for _, i := range newest {
		if i != len(recs)-1 && !bytes.Contains(recs[i].hdr, []byte(kvOpHeader)) && recs[i].msgLen > 0 {
			cands = append(cands, i)
		}
	}
	if len(cands) == 0 {
		return 0, "", fmt.Errorf("%s: no live value record to edit among %d records", path, len(recs))
	}
	sort.Ints(cands)
	r := recs[cands[len(cands)-1]]
	msg := buf[r.msgOff : r.msgOff+r.msgLen]
	msg[0] = 'x' // "c3-17" -> "x3-17": same length, written by no client
	rehash(buf, r, stream, index)
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		return 0, "", err
	}
	// Verify the edit: the record parses and holds the new value.
	again, _ := os.ReadFile(path)
	if !bytes.Equal(again, buf) {
		return 0, "", fmt.Errorf("%s: the edit did not stick", path)
	}
	return r.seq, decodeValue(msg), nil
}

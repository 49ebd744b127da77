package nemesis

import (
	"encoding/binary"
	"fmt"
)

// A message block is a run of records, each laid out as nats-server's
// (*msgBlock).writeMsgRecordLocked writes it (filestore.go, v2.10-v2.15):
//
//	length    uint32  the whole record; the top bit says it has headers
//	sequence  uint64  the top bits are flags (erased, tombstone)
//	timestamp int64
//	subject length uint16, subject
//	[header length uint32, header]  when the top bit of length is set
//	message
//	checksum  8 bytes (highwayhash of sequence to message)
//
// Stream blocks and raft logs (wal) share it.
const (
	recordHeaderSize = 22
	recordHashSize   = 8
	recordHasHeaders = 1 << 31
)

// recordField names the field of the block record that holds bit bit
// (0-7) of byte off of buf, so that a bit flip's detail says what it hit:
// "record 10 (seq 10) sequence bit 46". The records before off must parse (each length
// at least a bare record's and within buf); "" when they do not, as in a
// compressed or encrypted block.
func recordField(buf []byte, off int64, bit int) string {
	if off < 0 || off >= int64(len(buf)) {
		return ""
	}
	for start, k := int64(0), 1; start+recordHeaderSize <= int64(len(buf)); k++ {
		h := buf[start:]
		rl := int64(binary.LittleEndian.Uint32(h) &^ recordHasHeaders)
		if rl < recordHeaderSize+recordHashSize || start+rl > int64(len(buf)) {
			return ""
		}
		if off >= start+rl {
			start += rl
			continue
		}
		seq := binary.LittleEndian.Uint64(h[4:]) &^ (3 << 62)
		return fmt.Sprintf("record %d (seq %d) %s", k, seq, fieldAt(h[:rl], off-start, bit))
	}
	return ""
}

// fieldAt names the field at bit bit of byte i of one record rec; in a
// number, the bit's place (little-endian).
func fieldAt(rec []byte, i int64, bit int) string {
	n := int64(len(rec))
	bits := func(name string, from int64) string {
		return fmt.Sprintf("%s bit %d", name, (i-from)*8+int64(bit))
	}
	body := recordHeaderSize + int64(binary.LittleEndian.Uint16(rec[20:])) // after the subject
	switch {
	case i < 4:
		return bits("length", 0)
	case i < 12:
		return bits("sequence", 4)
	case i < 20:
		return bits("timestamp", 12)
	case i < recordHeaderSize:
		return "subject length"
	case i >= n-recordHashSize:
		return "checksum"
	case i < body:
		return "subject"
	}
	if binary.LittleEndian.Uint32(rec)&recordHasHeaders != 0 && body+4 <= n {
		if i < body+4 {
			return "header length"
		}
		if i < body+4+int64(binary.LittleEndian.Uint32(rec[body:])) {
			return "header"
		}
	}
	return "message"
}

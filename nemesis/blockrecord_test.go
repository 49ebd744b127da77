package nemesis

import (
	"encoding/binary"
	"strings"
	"testing"
)

// record builds one block record as nats-server writes it, with a zero
// checksum (recordField does not check it).
func record(seq uint64, subj, hdr, msg string) []byte {
	rl := recordHeaderSize + len(subj) + len(msg) + recordHashSize
	if hdr != "" {
		rl += 4 + len(hdr)
	}
	b := make([]byte, recordHeaderSize, rl)
	l := uint32(rl)
	if hdr != "" {
		l |= recordHasHeaders
	}
	binary.LittleEndian.PutUint32(b, l)
	binary.LittleEndian.PutUint64(b[4:], seq)
	binary.LittleEndian.PutUint64(b[12:], 1_700_000_000_000_000_000)
	binary.LittleEndian.PutUint16(b[20:], uint16(len(subj)))
	b = append(b, subj...)
	if hdr != "" {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(hdr)))
		b = append(b, hdr...)
	}
	b = append(b, msg...)
	return append(b, make([]byte, recordHashSize)...)
}

func TestRecordField(t *testing.T) {
	// Record 1 at 0 (38 bytes: subject "a.b" and a 5-byte message), record
	// 2 at 38 with headers "NATS/1.0\r\n" (10 bytes) and message "x".
	block := append(record(7, "a.b", "", "hello"), record(8, "c", "NATS/1.0\r\n", "x")...)
	second := int64(38)
	cases := []struct {
		off  int64
		bit  int
		want string
	}{
		{0, 0, "record 1 (seq 7) length bit 0"},
		{4, 3, "record 1 (seq 7) sequence bit 3"},
		{9, 6, "record 1 (seq 7) sequence bit 46"}, // repro/seqflip's
		{11, 7, "record 1 (seq 7) sequence bit 63"},
		{12, 1, "record 1 (seq 7) timestamp bit 1"},
		{21, 0, "record 1 (seq 7) subject length"},
		{22, 0, "record 1 (seq 7) subject"},
		{25, 0, "record 1 (seq 7) message"},
		{29, 0, "record 1 (seq 7) message"},
		{30, 0, "record 1 (seq 7) checksum"},
		{37, 0, "record 1 (seq 7) checksum"},
		{second + 5, 2, "record 2 (seq 8) sequence bit 10"},
		{second + 22, 0, "record 2 (seq 8) subject"},
		{second + 23, 0, "record 2 (seq 8) header length"},
		{second + 27, 0, "record 2 (seq 8) header"},
		{second + 36, 0, "record 2 (seq 8) header"},
		{second + 37, 0, "record 2 (seq 8) message"},
		{second + 38, 0, "record 2 (seq 8) checksum"},
		{int64(len(block)), 0, ""}, // past the end
		{-1, 0, ""},
	}
	for _, tc := range cases {
		if got := recordField(block, tc.off, tc.bit); got != tc.want {
			t.Errorf("offset %d: %q, want %q", tc.off, got, tc.want)
		}
	}
	// A length that does not fit (a compressed block, or a corrupt one)
	// names nothing rather than a wrong field.
	bad := append([]byte{}, block...)
	binary.LittleEndian.PutUint32(bad, 5)
	if got := recordField(bad, second+4, 0); got != "" {
		t.Errorf("unparsable block: %q", got)
	}
	// Erased and tombstone flags are not part of the sequence.
	flagged := record(9|1<<63, "s", "", "m")
	if got := recordField(flagged, 0, 0); !strings.HasPrefix(got, "record 1 (seq 9)") {
		t.Errorf("flagged sequence: %q", got)
	}
}

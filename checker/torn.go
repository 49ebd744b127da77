package checker

import "fmt"

// TornNote says, after what a summary says of an incomplete read-back,
// that its file was cut short at line (0: it was not); kv-update's and
// queue's checks say it alike.
func TornNote(line int) string {
	if line == 0 {
		return ""
	}
	return fmt.Sprintf("; stream.jsonl is cut short at line %d: the read-back did not finish", line)
}

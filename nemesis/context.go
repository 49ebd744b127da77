package nemesis

import (
	"fmt"
	"strings"
)

// withContext prefixes err with what the caller was doing ("kill n1"),
// unless err already starts with it. The runtimes name the control and the
// node in their own errors (see cluster.Cluster), so a layer that adds the
// same words again would print "kill n1: kill n1: ...". Each layer adds its
// context once.
func withContext(what string, err error) error {
	if err == nil || hasPrefixWords(err.Error(), what) {
		return err
	}
	return fmt.Errorf("%s: %w", what, err)
}

// hasPrefixWords reports whether s starts with the words of prefix, ending
// at a word boundary ("kill n1: x" starts with "kill" and "kill n1", not
// with "kil").
func hasPrefixWords(s, prefix string) bool {
	if prefix == "" || !strings.HasPrefix(s, prefix) {
		return false
	}
	rest := s[len(prefix):]
	return rest == "" || rest[0] == ' ' || rest[0] == ':'
}

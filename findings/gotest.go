package findings

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// GoTest is a finding as a go test (package chaostest) that reruns the
// run's command and fails while the anomaly shows, so a fixed bug stays
// fixed; "" when the command is not a chaos run. The password a run on an
// external cluster read from $NATS_PASSWORD is read from it again.
func GoTest(class, command string) string {
	args, err := record.ArgsOf(command)
	if err != nil {
		return ""
	}
	return GoTestOf(class, args)
}

// GoTestOf is GoTest for the flags of a chaos run (a shrunk command's).
func GoTestOf(class string, args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		if a == `--password="$NATS_PASSWORD"` {
			quoted[i] = `"--password=" + os.Getenv("NATS_PASSWORD")`
			continue
		}
		quoted[i] = strconv.Quote(a)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "// %s: found by jetstream-chaos; fails while it shows.\n", class)
	fmt.Fprintf(&b, "func TestChaos%s(t *testing.T) {\n\tchaostest.Run(t,\n", camel(class))
	for _, q := range quoted {
		fmt.Fprintf(&b, "\t\t%s,\n", q)
	}
	b.WriteString("\t)\n}\n")
	return b.String()
}

// camel is a class as a Go identifier: "lost-stream-head" -> LostStreamHead.
func camel(class string) string {
	var b strings.Builder
	up := true
	for _, r := range class {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			up = true
		case up:
			b.WriteRune(unicode.ToUpper(r))
			up = false
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

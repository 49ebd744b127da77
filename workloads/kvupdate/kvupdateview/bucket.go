package kvupdateview

import (
	"fmt"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/checker/kvcheck"
	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/kvupdate"
)

// bucketRows say how the bucket was set up: the revisions it keeps per key
// and the writes mixed in. A cell stored before either setting kept every
// revision and only updated.
func bucketRows(row kvRow) []reports.MatrixRow {
	return []reports.MatrixRow{
		row("History per key", "max_msgs_per_subject: 1 is nats kv add's default, all keeps every revision", func(c *reports.Cell, _ Summary) reports.MatrixVal {
			return reports.MatrixVal{Text: historyOf(cellSettings(c.CellResult)).String()}
		}),
		row("Op mix", "the writes after each get, weighted", func(c *reports.Cell, _ Summary) reports.MatrixVal {
			return reports.MatrixVal{Text: mixOf(cellSettings(c.CellResult)).String()}
		}),
	}
}

// storedRows judge what the bucket held after the heal: the read-back,
// deletes and creates, and whether every replica holds the same.
func storedRows(row kvRow) []reports.MatrixRow {
	return []reports.MatrixRow{
		row("Read-back", "each key's last revisions still there after the heal", checkCell(kvcheck.NameRetention,
			[]string{kvcheck.CountLastValueLost, kvcheck.CountRetainedMissing, kvcheck.CountRetainedExtra, kvcheck.CountRetainedChanged, kvcheck.CountSeqConflict},
			func(r *checker.Result) string {
				return fmt.Sprintf("all %s keys hold what they must", reports.FormatCount(r.Counts[kvcheck.CountKeys]))
			})),
		row("Deletes and creates", "deletes honoured, no deleted key read back, no create over a live key", checkCell(kvcheck.NameDeletes,
			[]string{kvcheck.CountResurrectedRead, kvcheck.CountDeleteNotHonoured, kvcheck.CountCreateOverLiveKey},
			func(r *checker.Result) string {
				return fmt.Sprintf("%s markers honoured", reports.FormatCount(r.Counts[kvcheck.CountMarkers]))
			})),
		row("Replicas agree", "every replica's copy of the stream read and compared after the heal", checkCell(replicas.NameDivergence,
			[]string{replicas.CountMissingMsgs, replicas.CountExtraMsgs, replicas.CountDifferentMsgs, replicas.CountStateMismatch},
			func(r *checker.Result) string {
				return fmt.Sprintf("%d of %d replicas identical", r.Counts[replicas.CountReplicasRead], r.Counts[replicas.CountReplicas])
			})),
	}
}

// checkCell shows a check: what it found, its reason when unknown, or ok
// in words; n/a for cells that did not run it.
func checkCell(name string, kinds []string, ok func(*checker.Result) string) func(*reports.Cell, Summary) reports.MatrixVal {
	return func(_ *reports.Cell, s Summary) reports.MatrixVal {
		r := s.Check(name)
		if r == nil {
			return reports.NA
		}
		switch r.Verdict {
		case checker.Valid:
			return reports.MatrixVal{Text: ok(r), Class: reports.ClassOK}
		case checker.Invalid:
			var found []string
			for _, k := range kinds {
				if n := r.Counts[k]; n > 0 {
					found = append(found, fmt.Sprintf("%s %s", reports.FormatCount(n), strings.ReplaceAll(k, "_", " ")))
				}
			}
			text := strings.Join(found, ", ")
			if name == replicas.NameDivergence {
				text = reports.FirstLine(r.Summary)
			}
			return reports.MatrixVal{Text: text, Class: reports.ClassBad}
		}
		return reports.MatrixVal{Text: string(r.Verdict) + ": " + reports.FirstLine(r.Reason), Class: reports.VerdictClass(string(r.Verdict))}
	}
}

// historyOf and mixOf read a stored setting; one stored before the flag
// existed kept every revision and only updated.
func historyOf(o kvupdate.Options) kvupdate.History {
	if o.History == 0 {
		return kvupdate.KeepAll
	}
	return o.History
}

func mixOf(o kvupdate.Options) kvupdate.Mix {
	if o.Mix.IsZero() {
		return kvupdate.DefaultMix
	}
	return o.Mix
}

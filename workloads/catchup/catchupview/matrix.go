package catchupview

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/observe"
	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
)

// catchupRows are the cells table of a catch-up run, one column a cell.
func catchupRows(p *reports.Page, sums []CatchupSummary) []reports.MatrixRow {
	t := &cuTable{p: p, sums: sums}
	t.setup()
	t.catchUp()
	t.memory()
	t.deaths()
	t.clients()
	t.data()
	return t.rows
}

// cuTable builds the rows of the catch-up cells table.
type cuTable struct {
	p    *reports.Page
	sums []CatchupSummary
	rows []reports.MatrixRow
}

// row adds a row read from catchup.json; a cell without one shows a dash.
func (t *cuTable) row(label, hint string, f func(s CatchupSummary, r *catchup.Result) reports.MatrixVal) {
	t.rows = append(t.rows, t.p.Row(label, hint, func(i int, _ *reports.Cell) reports.MatrixVal {
		if i < len(t.sums) && t.sums[i].R != nil {
			return f(t.sums[i], t.sums[i].R)
		}
		return reports.NA
	}))
}

func (t *cuTable) group(label string) { t.rows = append(t.rows, reports.GroupRow(label)) }

func plain(s string) reports.MatrixVal { return reports.MatrixVal{Text: s} }
func good(s string) reports.MatrixVal  { return reports.MatrixVal{Text: s, Class: reports.ClassOK} }
func bad(s string) reports.MatrixVal   { return reports.MatrixVal{Text: s, Class: reports.ClassBad} }

func (t *cuTable) setup() {
	t.group("Setup")
	t.rows = append(t.rows, t.p.VersionRow(), t.p.DirectGetRow("allow_direct on the stream: any replica answers direct gets"))
	t.row("Stream at the restart", "what the wiped replica had to catch up (the backlog asked, plus writes while it was down)", func(_ CatchupSummary, r *catchup.Result) reports.MatrixVal {
		st := r.Stream
		if st.RestartBytes == 0 {
			return plain(fmt.Sprintf("backlog %s asked; not restarted", reports.FormatSize(int64(r.Options.Backlog))))
		}
		return plain(fmt.Sprintf("%s, %s msgs (backlog %s of %s messages)", reports.FormatBytes(float64(st.RestartBytes)), reports.FormatCount(int64(st.RestartMsgs)),
			reports.FormatSize(int64(r.Options.Backlog)), reports.FormatSize(int64(r.Options.Payload))))
	})
	t.row("Memory limit / GOMEMLIMIT", "the hard limit on the catching-up node from its restart / the Go runtime's soft limit on every node", func(s CatchupSummary, r *catchup.Result) reports.MatrixVal {
		lim, gml := "none", "unset"
		if l := s.limit(); l > 0 {
			lim = reports.FormatSize(l)
		}
		if g := s.goMemLimit(); g > 0 {
			gml = reports.FormatSize(g)
			if r.Options.GoMemLimit == cluster.GoMemLimitAuto {
				gml += " (auto: 80 % of the limit)"
			}
		}
		return plain(lim + " / " + gml)
	})
	t.row("Target", "the replica killed, wiped and restarted empty", func(_ CatchupSummary, r *catchup.Result) reports.MatrixVal {
		if r.Target == "" {
			return plain(string(r.Options.Target) + " (not chosen)")
		}
		t := fmt.Sprintf("%s, the stream's %s", r.Target, r.TargetRole)
		if r.LeaderAtKill != "" && r.LeaderAtKill != r.Target {
			t += " (leader " + r.LeaderAtKill + ")"
		}
		return plain(t)
	})
}

func (t *cuTable) catchUp() {
	t.group("Catch-up")
	t.row("Catch-up time", "restart until the target holds the leader's data and its /healthz is OK", func(s CatchupSummary, r *catchup.Result) reports.MatrixVal {
		cu := r.CatchUp
		switch {
		case cu.RestartAtMs == 0:
			return reports.MatrixVal{Text: "not restarted", Class: "err"}
		case cu.Outcome == catchup.OutcomeCurrent:
			return good(fmt.Sprintf("%s (bound %s)", reports.FormatSecs(cu.Seconds), reports.FormatDuration(cu.Bound)))
		case cu.Outcome == "" || cu.Outcome == catchup.OutcomeInterrupted:
			return reports.MatrixVal{Text: "not decided: " + reports.FirstLine(cmp.Or(cu.Detail, "interrupted")), Class: "unk"}
		}
		return bad(fmt.Sprintf("not current after %s (%s): %s", reports.FormatSecs(cu.Seconds), outcomeWords(cu.Outcome), reports.FirstLine(cu.Detail)))
	})
	t.row("… milestones", "after the restart: the stream first seen on the target (snapshot applied), its data caught up, current", func(_ CatchupSummary, r *catchup.Result) reports.MatrixVal {
		cu := r.CatchUp
		if cu.RestartAtMs == 0 {
			return reports.NA
		}
		at := func(ms int64) string {
			if ms <= 0 {
				return "never"
			}
			return "+" + reports.FormatSecs(float64(ms-cu.RestartAtMs)/1000)
		}
		return plain(fmt.Sprintf("stream %s, data %s, current %s", at(cu.FirstSeenAtMs), at(cu.DataAtMs), at(cu.CurrentAtMs)))
	})
	t.row("Most behind", "messages the target was behind the stream leader", func(_ CatchupSummary, r *catchup.Result) reports.MatrixVal {
		if r.CatchUp.RestartAtMs == 0 {
			return reports.NA
		}
		return plain(reports.FormatCount(int64(r.CatchUp.MaxBehind)) + " msgs")
	})
}

func (t *cuTable) memory() {
	t.group("Memory, restart to heal")
	peak := func(v int64, ratio float64, at int64) string {
		if v <= 0 {
			return peakShort(v, ratio)
		}
		return peakShort(v, ratio) + " at " + reports.FormatAt(at)
	}
	t.row("Target: peak RSS", "the server process's resident memory; x is the ratio to the stream at the restart", func(s CatchupSummary, r *catchup.Result) reports.MatrixVal {
		n := r.TargetMemory()
		if n == nil {
			return reports.NA
		}
		v := plain(peak(n.PeakRSS, n.PeakRSSRatio, n.PeakRSSAt))
		if cu := r.CatchUp; cu.CurrentAtMs > 0 && cu.PeakRSSDuring > 0 {
			v.Text += fmt.Sprintf("; %s while catching up", reports.FormatBytes(float64(cu.PeakRSSDuring)))
			if cu.PeakRSSAfter > 0 {
				v.Text += fmt.Sprintf(", %s after", reports.FormatBytes(float64(cu.PeakRSSAfter)))
			}
		}
		return v
	})
	t.row("Target: peak cgroup usage", "what the memory limit counts, page cache included", func(s CatchupSummary, r *catchup.Result) reports.MatrixVal {
		n := r.TargetMemory()
		if n == nil {
			return reports.NA
		}
		return plain(peak(n.PeakUsage, n.PeakUsageRatio, n.PeakUsageAt))
	})
	t.row("Fits the limit", "no OOM kill of the target; its peak RSS as a share of the hard limit", func(s CatchupSummary, r *catchup.Result) reports.MatrixVal {
		lim := s.limit()
		d := s.deaths(r.Target)
		n := r.TargetMemory()
		switch {
		case d.OOMKills > 0:
			return bad(fmt.Sprintf("no: OOM-killed %s at its %s limit", reports.Times(d.OOMKills), reports.FormatSize(lim)))
		case lim <= 0:
			return plain("no limit set")
		case n == nil || n.PeakRSS <= 0:
			return good("yes: no OOM kill (RSS not measured)")
		}
		t := fmt.Sprintf("yes: peak RSS %s of %s", reports.FormatPercent(int(n.PeakRSS>>10), int(lim>>10)), reports.FormatSize(lim))
		if n.PeakUsage >= lim*98/100 {
			// The kernel reclaims page cache at the limit rather than kill.
			t += "; cgroup usage reached the limit (page cache reclaimed)"
		}
		return good(t)
	})
	others := func(f func(n catchup.NodeMemory) string) func(CatchupSummary, *catchup.Result) reports.MatrixVal {
		return func(_ CatchupSummary, r *catchup.Result) reports.MatrixVal {
			var parts []string
			for _, n := range r.Memory {
				if n.Node != r.Target {
					name := n.Node
					if n.Node == r.LeaderAtKill {
						name += " (leader)"
					}
					parts = append(parts, name+" "+f(n))
				}
			}
			if len(parts) == 0 {
				return reports.NA
			}
			return plain(strings.Join(parts, "; "))
		}
	}
	t.row("Other nodes: peak RSS", "the replicas that served the catch-up; the leader is the stream's at the kill", others(func(n catchup.NodeMemory) string {
		return peakShort(n.PeakRSS, n.PeakRSSRatio)
	}))
	t.row("Other nodes: peak cgroup usage", "", others(func(n catchup.NodeMemory) string {
		return peakShort(n.PeakUsage, n.PeakUsageRatio)
	}))
}

func (t *cuTable) deaths() {
	t.group("Deaths nobody asked for")
	// Each node's deaths of one kind with their times: "n1 2 times at 4.1 s, 9.0 s".
	times := func(count func(observe.Deaths) int, kind observe.EventKind) func(CatchupSummary, *catchup.Result) reports.MatrixVal {
		return func(s CatchupSummary, r *catchup.Result) reports.MatrixVal {
			var parts []string
			for _, d := range r.Deaths {
				if n := count(d); n > 0 {
					parts = append(parts, fmt.Sprintf("%s %s at %s", d.Node, reports.Times(n), reports.FormatAtList(s.eventTimes(d.Node, kind))))
				}
			}
			if len(parts) == 0 {
				return good("none")
			}
			return bad(strings.Join(parts, "; "))
		}
	}
	t.row("OOM kills", "the kernel killed a node at its memory limit; times are seconds since the cell started",
		times(func(d observe.Deaths) int { return d.OOMKills }, observe.EvOOMKill))
	t.row("Restarts by the runtime", "a node that died came back by itself (Docker's restart policy)",
		times(func(d observe.Deaths) int { return d.Restarts }, observe.EvRestart))
	t.row("Crash loop", "a node restarted by the runtime at least --crash-loop times", func(_ CatchupSummary, r *catchup.Result) reports.MatrixVal {
		var loops []string
		restarts := 0
		for _, d := range r.Deaths {
			if d.CrashLoop {
				loops = append(loops, fmt.Sprintf("%s (%d restarts)", d.Node, d.Restarts))
			}
			restarts = max(restarts, d.Restarts)
		}
		switch {
		case len(loops) == 0 && restarts > 0:
			return reports.MatrixVal{Text: fmt.Sprintf("no: %s, below the threshold of %d", reports.Plural(restarts, "restart", "restarts"), r.Options.CrashLoop), Class: "unk"}
		case len(loops) == 0:
			return good(fmt.Sprintf("no (threshold %d restarts)", r.Options.CrashLoop))
		}
		return bad("yes: " + strings.Join(loops, ", "))
	})
}

func (t *cuTable) clients() {
	t.group("Clients")
	t.row("Publish latency p99 during the catch-up", "acknowledged publishes while the target caught up; in brackets, while it was down", func(_ CatchupSummary, r *catchup.Result) reports.MatrixVal {
		l, ok := r.Publish.Latency[catchup.PhaseCatchup]
		if !ok || l.Count == 0 {
			return reports.NA
		}
		t := fmt.Sprintf("%s (p50 %s, max %s)", reports.FormatMs(l.P99Ms), reports.FormatMs(l.P50Ms), reports.FormatMs(l.MaxMs))
		if d, ok := r.Publish.Latency[catchup.PhaseDown]; ok && d.Count > 0 {
			t += fmt.Sprintf(" [down: p99 %s]", reports.FormatMs(d.P99Ms))
		}
		return plain(t)
	})
	t.row("Publish errors", "failed or timed-out publishes (a timeout is indeterminate), by phase", func(_ CatchupSummary, r *catchup.Result) reports.MatrixVal {
		t := publishErrors(r.Publish)
		if t == "" {
			return good(fmt.Sprintf("none in %s publishes", reports.FormatCount(r.Publish.Sent)))
		}
		return reports.MatrixVal{Text: t, Class: "unk"}
	})
	t.row("Gets through the target", "direct gets of acknowledged sequences sent to the catching-up node; not found means a stale answer", func(_ CatchupSummary, r *catchup.Result) reports.MatrixVal {
		rd := r.Reads
		if rd.Gets == 0 {
			return reports.NA
		}
		v := plain(fmt.Sprintf("%s gets, %s ok, %s not found", reports.FormatCount(rd.Gets), reports.FormatCount(rd.OK), reports.FormatCount(rd.NotFound)))
		if rd.NotFound > 0 {
			v.Class = "unk"
		}
		return v
	})
}

func (t *cuTable) data() {
	t.group("Data")
	t.row("Acknowledged messages", "every id acknowledged to a publisher, read back from the stream after the heal", func(s CatchupSummary, r *catchup.Result) reports.MatrixVal {
		in := r.Integrity
		ck := s.Check(catchup.CheckAckedPresent)
		t := fmt.Sprintf("%s acknowledged, %s missing", reports.FormatCount(int64(in.Acked)), reports.FormatCount(int64(in.Missing)))
		if in.Dups > 0 {
			t += fmt.Sprintf(", %s stored twice", reports.FormatCount(int64(in.Dups)))
		}
		if ck == nil {
			return plain(t)
		}
		v := reports.MatrixVal{Text: t, Class: reports.VerdictClass(string(ck.Verdict))}
		if ck.Verdict == checker.Unknown {
			v.Text += ": " + reports.FirstLine(cmp.Or(ck.Reason, ck.Summary))
		}
		return v
	})
	t.row("Replicas agree", "every replica holds the same first and last sequence and count", func(s CatchupSummary, r *catchup.Result) reports.MatrixVal {
		ck := s.Check(catchup.CheckReplicasAgree)
		if ck == nil {
			return reports.NA
		}
		word := map[checker.Verdict]string{checker.Valid: "yes", checker.Invalid: "no"}[ck.Verdict]
		return reports.MatrixVal{Text: strings.TrimPrefix(cmp.Or(word, string(ck.Verdict))+": "+reports.FirstLine(ck.Summary), ": "), Class: reports.VerdictClass(string(ck.Verdict))}
	})
}

// catchupCheckHints say what each catch-up check decides.
var catchupCheckHints = map[string]string{
	catchup.CheckOOMKill:       "no node OOM-killed",
	catchup.CheckCrashLoop:     "no node restarted by the runtime again and again",
	catchup.CheckCatchUp:       "the target current within the bound",
	catchup.CheckMemory:        "the target's peak memory within the bound, whether or not it was OOM-killed",
	checker.NameRecovery:       "the cluster healthy after the heal",
	catchup.CheckReplicasAgree: "every replica holds the same messages",
	catchup.CheckAckedPresent:  "every acknowledged message stored once",
}

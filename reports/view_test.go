package reports

import (
	"bytes"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/reports/reportstest"
)

// fakeView adds one of everything a view may add, and counts its loads.
type fakeView struct{ loads map[string]int }

func (v fakeView) Load(cellDir string, c *Cell) error {
	v.loads[c.Name]++
	b, err := os.ReadFile(filepath.Join(cellDir, "fake.txt"))
	if err != nil {
		return err
	}
	c.Data = strings.TrimSpace(string(b))
	return nil
}

func (fakeView) Page(p *Page) {
	p.Kicker, p.TitleWhat = "a fake workload", "fake "
	p.Intro = template.HTML(`<section id="explain"><h2>What the fake did</h2></section>`)
	p.Rows = append(p.Rows, GroupRow("Fake"), p.Row("fake data", "what fake.txt says", func(_ int, c *Cell) MatrixVal {
		s, _ := c.Data.(string)
		return MatrixVal{Text: "data " + s}
	}))
	p.CheckHints = map[string]string{"stale-read": "a hint for stale-read"}
	p.Blocks = append(p.Blocks, Block{ID: "fake-block", Nav: "Fake block", Title: "A fake block", Lead: "its lead"})
	for i := range p.Headline {
		p.Headline[i] = "fake: " + p.Headline[i]
	}
}

func (fakeView) Cell(_ *Page, c *Cell, s *CellSection) {
	s.Sentence = fmt.Sprintf("fake sentence of %s (%v)", c.Name, c.Data)
	s.Facts = InsertParams(s.Facts, "nats-server", Param{K: "fake fact", V: "42"})
	s.Extra = template.HTML(`<p class="fake-extra">extra of ` + template.HTMLEscapeString(c.Name) + `</p>`)
}

func (fakeView) JUnit(_ *Run, c *Cell) JUnitExtra {
	return JUnitExtra{Properties: []Param{{K: "fake_property", V: c.Name}}, Finding: "fake finding"}
}

func (fakeView) CutShort() string { return "the fake keeps its own notes" }

// A registered view's parts are on the page, in the JUnit XML and in the
// headline; its Load runs once a cell; a workload with no view gets the
// generic page.
func TestViewRegistry(t *testing.T) {
	v := fakeView{loads: map[string]int{}}
	RegisterView("fake", v)
	t.Cleanup(func() {
		viewMu.Lock()
		delete(views, "fake")
		viewMu.Unlock()
	})
	s := reportstest.SyntheticMatrix()
	s.Res.Spec.Workload = "fake"
	dir := reportstest.WriteRun(t, s)
	for _, c := range s.Res.Cells {
		reportstest.WriteText(t, filepath.Join(dir, c.Name, "fake.txt"), "of "+c.Name+"\n")
	}
	page := pageOf(t, dir)
	for _, c := range s.Res.Cells {
		if v.loads[c.Name] != 1 {
			t.Errorf("Load ran %d times for %s, want once", v.loads[c.Name], c.Name)
		}
	}
	for _, w := range []string{"<title>INVALID: jetstream-chaos fake run", "a fake workload", "What the fake did",
		"data of partition-leader_direct-get-on", "what fake.txt says", "a hint for stale-read", `<a href="#fake-block">Fake block</a>`,
		"A fake block", "its lead", "fake: Direct Get on under partition-leader: session:", "fake sentence of kill_direct-get-off (of kill_direct-get-off)",
		"<dt>fake fact</dt><dd>42</dd>", `<p class="fake-extra">extra of kill_direct-get-off</p>`} {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
	junit, _ := os.ReadFile(filepath.Join(dir, JUnitFile))
	for _, w := range []string{`<property name="fake_property" value="kill_direct-get-on"></property>`,
		"<system-out>Direct Get off, nemesis partition-leader, nats-server v2.15.3: fake finding (files in partition-leader_direct-get-off)</system-out>",
		// the cell with a harness error gets the finding in the error's body
		"see logs/n2.log)&#xA;fake finding</error>"} {
		if !bytes.Contains(junit, []byte(w)) {
			t.Errorf("junit.xml lacks %q", w)
		}
	}
	if err := os.Remove(filepath.Join(dir, "results.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, s.Res.Cells[1].Name, "results.json")); err != nil {
		t.Fatal(err)
	}
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Result.Cells[1].Error; !strings.HasSuffix(got, "; the fake keeps its own notes") {
		t.Errorf("a cell cut short says %q", got)
	}

	// No view: the generic page, and the view's parts are gone.
	s.Res.Spec.Workload = "no-such-view"
	generic := pageOf(t, reportstest.WriteRun(t, s))
	if !strings.Contains(generic, "NATS JetStream under faults, workload no-such-view") || !strings.Contains(generic, "Direct Get on under partition-leader: session:") {
		t.Error("the generic page lacks its kicker or headline")
	}
	for _, w := range []string{"fake", "What was tested"} {
		if strings.Contains(generic, w) {
			t.Errorf("the generic page shows %q", w)
		}
	}
}

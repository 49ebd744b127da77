package reports

import "testing"

// A list table escapes every value, sets a cell's class only when it has
// one, and shows a code value a line each.
func TestListTable(t *testing.T) {
	got := string(ListTable("logs", []string{"node", "<what>"}, [][]Td{
		{{Text: "n1", Class: ClassBad}, {Text: "a <b>\nc&d", Code: true}},
		{{Text: "n2"}, {Text: ""}},
	}))
	want := `<table class="list logs"><thead><tr><th>node</th><th>&lt;what&gt;</th></tr></thead><tbody>` +
		`<tr><td class="bad">n1</td><td><code>a &lt;b&gt;</code><br><code>c&amp;d</code></td></tr>` +
		`<tr><td>n2</td><td></td></tr></tbody></table>`
	if got != want {
		t.Errorf("ListTable\n got %s\nwant %s", got, want)
	}
	if got := string(htmlTable([]string{"a"}, [][]string{{"x"}})); got != `<table class="list"><thead><tr><th>a</th></tr></thead><tbody><tr><td>x</td></tr></tbody></table>` {
		t.Errorf("htmlTable = %s", got)
	}
}

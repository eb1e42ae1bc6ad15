package ports

import "testing"

// The catalogue's markup never reaches a page: its text does (issue 45).
func TestPlainText(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Two <strong>Business Performance</strong> licences plus a year": "Two Business Performance licences plus a year",
		"Runway &amp; obstacle data<br>for <em>HondaJet</em>":            "Runway & obstacle data for HondaJet",
		`<p>One</p><p>Two <script>alert(1)</script></p>`:                 "One Two",
		"&lt;strong&gt; as text":                                         "<strong> as text",
		"  plain   text  ":                                               "plain text",
	} {
		if got := plainText(in); got != want {
			t.Errorf("plainText(%q) = %q, want %q", in, got, want)
		}
	}
}

package ports

import (
	"strings"

	"golang.org/x/net/html"
)

// plainText is the text of a catalogue description written as markup (htmlDescription):
// tags dropped, entities decoded, white space collapsed. The wire carries text only, so no
// page renders the catalogue's markup as HTML, nor shows it as literal tags (issue 45: the
// HondaJet bundle read "Two <strong>Business Performance</strong> licences").
func plainText(markup string) string {
	var b strings.Builder
	z := html.NewTokenizer(strings.NewReader(markup))
	code := false // inside a script or style element: not text
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return strings.Join(strings.Fields(b.String()), " ")
		case html.TextToken:
			if !code {
				b.Write(z.Text())
			}
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			if tag := string(name); tag == "script" || tag == "style" {
				code = tt == html.StartTagToken
			} else if isBlock(tag) {
				// A block or a line break separates words; inline tags (strong, em, a) do not.
				b.WriteByte(' ')
			}
		}
	}
}

// isBlock reports whether the element's boundaries separate words.
func isBlock(tag string) bool {
	switch tag {
	case "br", "p", "div", "li", "ul", "ol", "h1", "h2", "h3", "h4":
		return true
	}
	return false
}

// Package standintest reads the process's goroutines with their pprof labels, for tests
// that check which goroutines carry the stand-in label (internal/standin).
package standintest

import (
	"errors"
	"fmt"
	"regexp"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
)

// Goroutine is one record of the goroutine profile: goroutines with the same stack and the
// same labels.
type Goroutine struct {
	Count int
	// Stack holds the frames, a line each: address, function+offset, file:line.
	Stack  string
	Labels map[string]string
}

// label is one "key":"value" of a record's labels line, both Go-quoted.
var label = regexp.MustCompile(`("(?:[^"\\]|\\.)*"):("(?:[^"\\]|\\.)*")`)

// Goroutines answers the goroutines running now (Read), failing t if they cannot be read.
func Goroutines(t testing.TB) []Goroutine {
	t.Helper()
	gs, err := Read()
	if err != nil {
		t.Fatal(err)
	}
	return gs
}

// Read answers the goroutines running now, from the goroutine profile at debug=1 (the text
// form that lists each record's labels). Unlike Goroutines it may run on any goroutine (a
// handler's).
func Read() ([]Goroutine, error) {
	var b strings.Builder
	if err := pprof.Lookup("goroutine").WriteTo(&b, 1); err != nil {
		return nil, err
	}
	var out []Goroutine
	// "goroutine profile: total N", then the records, a blank line between two.
	_, text, _ := strings.Cut(b.String(), "\n")
	for _, rec := range strings.Split(text, "\n\n") {
		lines := strings.Split(strings.TrimSpace(rec), "\n")
		n, _, ok := strings.Cut(lines[0], " @ ")
		count, err := strconv.Atoi(n)
		if !ok || err != nil {
			if strings.TrimSpace(rec) == "" {
				continue
			}
			return nil, fmt.Errorf("goroutine profile record %q: no count", lines[0])
		}
		g := Goroutine{Count: count, Labels: map[string]string{}}
		var stack []string
		for _, l := range lines[1:] {
			if ls, ok := strings.CutPrefix(l, "# labels: "); ok {
				for _, m := range label.FindAllStringSubmatch(ls, -1) {
					k, err1 := strconv.Unquote(m[1])
					v, err2 := strconv.Unquote(m[2])
					if err := errors.Join(err1, err2); err != nil {
						return nil, fmt.Errorf("goroutine labels %q: %w", ls, err)
					}
					g.Labels[k] = v
				}
				continue
			}
			stack = append(stack, l)
		}
		g.Stack = strings.Join(stack, "\n")
		out = append(out, g)
	}
	return out, nil
}

// Labelled answers the goroutines of gs whose labels hold key=value.
func Labelled(gs []Goroutine, key, value string) []Goroutine {
	var out []Goroutine
	for _, g := range gs {
		if v, ok := g.Labels[key]; ok && v == value {
			out = append(out, g)
		}
	}
	return out
}

// Running answers the goroutines of gs with fn among their frames: a function's full name
// (github.com/hangar/hangar/internal/devmail.Listen.func1), or, ending with a dot, every
// function of a package (github.com/emersion/go-smtp.).
func Running(gs []Goroutine, fn string) []Goroutine {
	var out []Goroutine
	for _, g := range gs {
		for _, frame := range strings.Split(g.Stack, "\n") {
			// "#\t0x4a1b2c\tpkg.Func+0x2c\t/path/file.go:12"
			f := strings.Split(frame, "\t")
			if len(f) < 3 {
				continue
			}
			name, _, _ := strings.Cut(f[2], "+0x")
			if name == fn || strings.HasSuffix(fn, ".") && strings.HasPrefix(name, fn) {
				out = append(out, g)
				break
			}
		}
	}
	return out
}

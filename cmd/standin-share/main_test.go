package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"

	"github.com/hangar/hangar/internal/standin"
)

// The script reads a line per stand-in in a fixed order, whether or not it was sampled,
// after the total; their sum is within the total. (ReadCPU's arithmetic is
// internal/standin's test.)
func TestWritePrintsTheTotalThenEveryStandin(t *testing.T) {
	t.Parallel()
	var prof bytes.Buffer
	if err := pprof.StartCPUProfile(&prof); err != nil {
		t.Fatal(err)
	}
	standin.Do(context.Background(), standin.Mail, func(context.Context) {
		b := make([]byte, 1<<20)
		for range 32 {
			s := sha256.Sum256(b)
			b[0] = s[0]
		}
	})
	pprof.StopCPUProfile()
	var out bytes.Buffer
	if err := write(&out, &prof); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := append([]string{"total"}, standin.Names()...)
	if len(lines) != len(want) {
		t.Fatalf("output %q, want a line each for %v", out.String(), want)
	}
	var total, sum int64
	for i, l := range lines {
		name, v, _ := strings.Cut(l, " ")
		n, err := strconv.ParseInt(v, 10, 64)
		if name != want[i] || err != nil || n < 0 {
			t.Fatalf("line %d %q, want %s and nanoseconds", i, l, want[i])
		}
		if i == 0 {
			total = n
		} else {
			sum += n
		}
	}
	if sum > total {
		t.Errorf("stand-ins %d ns, more than the total %d ns", sum, total)
	}
	var goroutines bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&goroutines, 0)
	if err := write(&out, &goroutines); err == nil {
		t.Error("write(goroutine profile) = nil error, want it refused")
	}
}

package standin_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/hangar/hangar/internal/standin"
	"github.com/hangar/hangar/internal/standin/standintest"
)

// probe answers the stand-in label of the goroutine serving the request ("-" without one),
// as the goroutine profile shows it: probe's own frame marks that goroutine.
func probe(w http.ResponseWriter, _ *http.Request) {
	gs, err := standintest.Read()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	mine := standintest.Running(gs, "github.com/hangar/hangar/internal/standin_test.probe")
	if len(mine) != 1 || mine[0].Count != 1 {
		http.Error(w, fmt.Sprintf("%d goroutines in probe", len(mine)), http.StatusInternalServerError)
		return
	}
	v, ok := mine[0].Labels[standin.Key]
	if !ok {
		v = "-"
	}
	fmt.Fprint(w, v)
}

// A stand-in mounted beside the store's routes (the human verifier's widget on the edge)
// runs labelled, and the connection's goroutine is the store's again for the next request.
func TestHandlerLabelsTheRequestItServesOnly(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.Handle("/standin", standin.Handler(standin.Recaptcha, http.HandlerFunc(probe)))
	mux.HandleFunc("/store", probe)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	get := func(path string) string {
		resp, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, b)
		}
		return string(b)
	}
	// The same keep-alive connection, so the same serving goroutine, in turn.
	for _, want := range []struct{ path, label string }{{"/store", "-"}, {"/standin", standin.Recaptcha}, {"/store", "-"}} {
		if got := get(want.path); got != want.label {
			t.Errorf("%s served with label %s=%q, want %q", want.path, standin.Key, got, want.label)
		}
	}
}

// burn spends some CPU on the calling goroutine.
func burn() {
	b := make([]byte, 1<<20)
	for range 48 {
		s := sha256.Sum256(b)
		b[0] = s[0]
	}
}

// A real CPU profile of a stand-in goroutine (started inside Do) and of its caller after Do
// returned: ReadCPU finds the stand-in's samples under its name, and the caller's outside.
// Sampling is statistical, so a round whose profile missed one of them is run again.
func TestReadCPUTellsAStandinsSamplesInARuntimeProfile(t *testing.T) {
	t.Parallel()
	for round := 1; ; round++ {
		var buf bytes.Buffer
		if err := pprof.StartCPUProfile(&buf); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		standin.Do(context.Background(), standin.Broker, func(context.Context) {
			go func() {
				defer close(done)
				burn()
			}()
		})
		burn()
		<-done
		pprof.StopCPUProfile()
		cpu, err := standin.ReadCPU(&buf)
		if err != nil {
			t.Fatal(err)
		}
		// The profile is the whole process's: the package's other tests, running in
		// parallel, may add samples of their own stand-ins (the verifier's handler), never
		// of a name that is not one.
		var sum time.Duration
		for name, d := range cpu.ByStandin {
			if !slices.Contains(standin.Names(), name) {
				t.Fatalf("samples labelled %s=%s, not a stand-in", standin.Key, name)
			}
			sum += d
		}
		if b := cpu.ByStandin[standin.Broker]; b > 0 && cpu.Total > sum {
			if cpu.Standins() != sum {
				t.Errorf("Standins() = %v, want the labelled samples' %v", cpu.Standins(), sum)
			}
			return
		}
		if round == 50 {
			t.Fatalf("after %d rounds the profile still lacks the broker's or the caller's samples: %+v", round, cpu)
		}
	}
}

// ReadCPU sums the cpu/nanoseconds value (not the sample count) of every sample, and of
// those labelled with Key by value; a label under another key, or another key's label with
// a stand-in's name, is not a stand-in's.
func TestReadCPUSumsTheCPUOfEachStandinsSamples(t *testing.T) {
	t.Parallel()
	ms := int64(time.Millisecond)
	fn := &profile.Function{ID: 1, Name: "f"}
	loc := &profile.Location{ID: 1, Line: []profile.Line{{Function: fn}}}
	sample := func(n, cpu int64, labels map[string][]string) *profile.Sample {
		return &profile.Sample{Location: []*profile.Location{loc}, Value: []int64{n, cpu}, Label: labels}
	}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		Function:   []*profile.Function{fn}, Location: []*profile.Location{loc},
		Sample: []*profile.Sample{
			sample(1, 10*ms, map[string][]string{standin.Key: {standin.Broker}}),
			sample(2, 20*ms, map[string][]string{"other": {"x"}, standin.Key: {standin.Mail}}),
			sample(3, 30*ms, map[string][]string{"other": {standin.Broker}}),
			sample(4, 40*ms, nil),
			sample(1, 5*ms, map[string][]string{standin.Key: {standin.Broker}}),
		},
	}
	var gz, plain bytes.Buffer
	if err := p.Write(&gz); err != nil {
		t.Fatal(err)
	}
	if err := p.WriteUncompressed(&plain); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"plain": plain.Bytes(), "gzipped": gz.Bytes()} {
		cpu, err := standin.ReadCPU(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := standin.CPU{Total: 105 * time.Millisecond, ByStandin: map[string]time.Duration{standin.Broker: 15 * time.Millisecond, standin.Mail: 20 * time.Millisecond}}
		if fmt.Sprint(cpu) != fmt.Sprint(want) {
			t.Errorf("%s: ReadCPU = %+v, want %+v", name, cpu, want)
		}
		if cpu.Standins() != 35*time.Millisecond {
			t.Errorf("%s: Standins() = %v, want 35ms", name, cpu.Standins())
		}
	}
}

// Another profile (the goroutines') is refused, not read as no CPU at all.
func TestReadCPURefusesAProfileOtherThanCPU(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := standin.ReadCPU(&buf); err == nil || !strings.Contains(err.Error(), "not a CPU profile") {
		t.Errorf("ReadCPU(goroutine profile) = %v, want not a CPU profile", err)
	}
	if _, err := standin.ReadCPU(strings.NewReader("\x0a\xff")); err == nil {
		t.Error("ReadCPU(truncated message) = nil error")
	}
}

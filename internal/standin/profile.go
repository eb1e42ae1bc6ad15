package standin

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/google/pprof/profile"
)

// CPU is a CPU profile's sampled CPU time: all of it, and that of the samples labelled as
// each stand-in.
type CPU struct {
	Total time.Duration
	// ByStandin holds the CPU of the samples whose label Key has that value (a stand-in not
	// sampled is absent).
	ByStandin map[string]time.Duration
}

// Standins is the CPU of every labelled sample.
func (c CPU) Standins() time.Duration {
	var d time.Duration
	for _, v := range c.ByStandin {
		d += v
	}
	return d
}

// ReadCPU reads a CPU profile as runtime/pprof writes it (gzipped or not) and answers its
// CPU in total and by stand-in label. It reads the profile itself rather than pprof's text
// output, whose layout is not a contract.
func ReadCPU(r io.Reader) (CPU, error) {
	p, err := profile.Parse(r)
	if err != nil {
		return CPU{}, fmt.Errorf("profile: %w", err)
	}
	i := slices.IndexFunc(p.SampleType, func(t *profile.ValueType) bool { return t.Type == "cpu" && t.Unit == "nanoseconds" })
	if i < 0 {
		return CPU{}, errors.New("profile: not a CPU profile (no cpu/nanoseconds sample type)")
	}
	c := CPU{ByStandin: map[string]time.Duration{}}
	for _, s := range p.Sample {
		d := time.Duration(s.Value[i])
		c.Total += d
		if v := s.Label[Key]; len(v) > 0 {
			c.ByStandin[v[0]] += d
		}
	}
	return c, nil
}

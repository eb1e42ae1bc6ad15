package standin

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
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

// The fields of profile.proto (github.com/google/pprof/proto/profile.proto) ReadCPU reads;
// the rest (locations, functions, mappings) it skips.
const (
	profSampleType  = 1
	profSample      = 2
	profStringTable = 6
	valueTypeType   = 1
	valueTypeUnit   = 2
	sampleValue     = 2
	sampleLabel     = 3
	labelKey        = 1
	labelStr        = 2
)

// sample is one profile sample as read: its values and its string labels, as string-table
// indexes (the table may come after the samples).
type sample struct {
	values []int64
	labels [][2]int64 // key, str
}

// ReadCPU reads a CPU profile as runtime/pprof writes it (profile.proto, gzipped or not)
// and answers its CPU in total and by stand-in label. It reads the profile itself rather
// than pprof's text output, whose layout is not a contract.
func ReadCPU(r io.Reader) (CPU, error) {
	br := bufio.NewReader(r)
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return CPU{}, fmt.Errorf("profile: %w", err)
		}
		defer zr.Close()
		r = zr
	} else {
		r = br
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return CPU{}, fmt.Errorf("profile: %w", err)
	}
	var (
		types   [][2]int64 // type, unit
		samples []sample
		strs    []string
	)
	err = fields(data, func(num protowire.Number, typ protowire.Type, v uint64, b []byte) error {
		switch {
		case num == profSampleType && typ == protowire.BytesType:
			var t [2]int64
			err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, _ []byte) error {
				if typ == protowire.VarintType && (num == valueTypeType || num == valueTypeUnit) {
					t[num-valueTypeType] = int64(v)
				}
				return nil
			})
			types = append(types, t)
			return err
		case num == profSample && typ == protowire.BytesType:
			s, err := readSample(b)
			samples = append(samples, s)
			return err
		case num == profStringTable && typ == protowire.BytesType:
			strs = append(strs, string(b))
		}
		return nil
	})
	if err != nil {
		return CPU{}, err
	}
	str := func(i int64) string {
		if i < 0 || i >= int64(len(strs)) {
			return ""
		}
		return strs[i]
	}
	// A CPU profile's values are samples/count and cpu/nanoseconds; the latter is read.
	cpu := -1
	for i, t := range types {
		if str(t[0]) == "cpu" && str(t[1]) == "nanoseconds" {
			cpu = i
		}
	}
	if cpu < 0 {
		return CPU{}, errors.New("profile: not a CPU profile (no cpu/nanoseconds sample type)")
	}
	out := CPU{ByStandin: map[string]time.Duration{}}
	for _, s := range samples {
		if cpu >= len(s.values) {
			return CPU{}, fmt.Errorf("profile: a sample has %d values, the profile %d types", len(s.values), len(types))
		}
		d := time.Duration(s.values[cpu])
		out.Total += d
		for _, l := range s.labels {
			if str(l[0]) == Key {
				out.ByStandin[str(l[1])] += d
			}
		}
	}
	return out, nil
}

// readSample reads a Sample message's values (packed or not: runtime/pprof packs only
// lists longer than two) and string labels.
func readSample(b []byte) (sample, error) {
	var s sample
	err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, b []byte) error {
		switch {
		case num == sampleValue && typ == protowire.VarintType:
			s.values = append(s.values, int64(v))
		case num == sampleValue && typ == protowire.BytesType:
			for len(b) > 0 {
				x, n := protowire.ConsumeVarint(b)
				if n < 0 {
					return fmt.Errorf("profile: sample value: %w", protowire.ParseError(n))
				}
				s.values = append(s.values, int64(x))
				b = b[n:]
			}
		case num == sampleLabel && typ == protowire.BytesType:
			var l [2]int64
			err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, _ []byte) error {
				if typ == protowire.VarintType && (num == labelKey || num == labelStr) {
					l[num-labelKey] = int64(v)
				}
				return nil
			})
			if err != nil {
				return err
			}
			s.labels = append(s.labels, l)
		}
		return nil
	})
	return s, err
}

// fields calls f with each field of the protobuf message b: its varint value, or its bytes
// for a length-delimited field; fixed-width fields are skipped.
func fields(b []byte, f func(num protowire.Number, typ protowire.Type, v uint64, b []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("profile: %w", protowire.ParseError(n))
		}
		b = b[n:]
		var (
			v   uint64
			val []byte
		)
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			val, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return fmt.Errorf("profile: field %d: %w", num, protowire.ParseError(n))
		}
		b = b[n:]
		if err := f(num, typ, v, val); err != nil {
			return err
		}
	}
	return nil
}

// Command standin-share reads a CPU profile of hangar-dev and prints its sampled CPU in
// total and that of each development stand-in (the goroutines labelled
// hangar.standin=broker|mail|recaptcha|processor, internal/standin), in nanoseconds, a line each:
//
//	total 8120000000
//	broker 540000000
//	mail 150000000
//	recaptcha 30000000
//
// Every stand-in has its line (0 when not sampled); a label value it does not know follows
// under its own name. scripts/perf-floor.sh and scripts/checkout-cpu.sh take each stand-in's
// share of the total to tell the stand-ins' CPU from the store's.
//
//	go run ./cmd/standin-share PROFILE
package main

import (
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/hangar/hangar/internal/standin"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: standin-share PROFILE")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "standin-share:", err)
		os.Exit(1)
	}
	defer f.Close()
	if err := write(os.Stdout, f); err != nil {
		fmt.Fprintln(os.Stderr, "standin-share:", err)
		os.Exit(1)
	}
}

// write prints profile's CPU in total and by stand-in to w.
func write(w io.Writer, profile io.Reader) error {
	cpu, err := standin.ReadCPU(profile)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintln(w, "total", cpu.Total.Nanoseconds()); err != nil {
		return err
	}
	names := standin.Names()
	for name := range cpu.ByStandin {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names[len(standin.Names()):])
	for _, name := range names {
		if _, err := fmt.Fprintln(w, name, cpu.ByStandin[name].Nanoseconds()); err != nil {
			return err
		}
	}
	return nil
}

package kafka

import "time"

// pace spaces the rounds of a batching loop (a relay's rounds, a batch consumer's batches)
// so that a round carries about fill items: the spacing grows as traffic falls, from least
// up to most, and shrinks as it rises. A round's cost is mostly per round (a relay's four
// statements and a produce, a consumer's transaction and offset commit), so at a steady
// 10 events a second a spacing of 200 ms paid it for two events where a second pays it
// for ten; under heavy traffic the spacing stays at least and rounds fill by themselves.
//
// The spacing is counted from the previous round's start, so an event after a quiet spell
// (the previous round long past) is not held at all: only events that come while rounds
// follow each other wait, and at most `most`.
type pace struct {
	least, most time.Duration
	fill        int
	rate        float64 // items a second, smoothed over the last rounds
	rounds      int     // rounds the rate was measured over
	last        time.Time
}

// next records a round that began at began and carried n items, and answers how long
// after began the next round should start at the earliest.
func (p *pace) next(began time.Time, n int) time.Duration {
	prev := p.last
	p.last = began
	gap := began.Sub(prev).Seconds()
	switch {
	case prev.IsZero() || gap <= 0:
		return p.least // no history yet: as a fixed spacing would
	case p.rounds == 0:
		p.rate = float64(n) / gap
	default:
		// Half the weight on the latest round: a change of traffic is followed within a few
		// rounds, and one round's chance count moves the spacing by half of its error.
		p.rate = (p.rate + float64(n)/gap) / 2
	}
	p.rounds++
	if p.rate <= 0 {
		return p.most
	}
	s := time.Duration(float64(p.fill) / p.rate * float64(time.Second))
	return min(max(s, p.least), p.most)
}

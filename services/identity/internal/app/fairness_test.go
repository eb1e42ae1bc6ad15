package app_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
	iapp "github.com/hangar/hangar/services/identity/internal/app"
)

// A flood of logins from one address cannot starve everybody else's: each address holds
// at most PerAddress of the pool's work areas. Before, the flood's wrong
// passwords took all 4 slots and real logins waited for them until told 'busy' (429):
// in a burst of 100, 58 correct logins were refused. The flood here holds its slots
// through the verification seam until the 20 others are done, so the test does not
// depend on timing.
func TestOneAddressFloodDoesNotStarveOtherLogins(t *testing.T) {
	t.Parallel()
	e := setup(t, func(p *iapp.Policies) { p.Hashing = iapp.HashPoolConfig{Size: 4, PerAddress: 1, Wait: 2 * time.Second} })
	ctx := context.Background()
	const people, flood = 20, 10
	for i := range people {
		e.account(t, fmt.Sprintf("pilot%d@example.com", i))
	}
	// The flood guesses the passwords of real accounts: an unknown e-mail takes no area.
	for i := range flood {
		e.account(t, fmt.Sprintf("victim%d@example.com", i))
	}
	const floodIP = "192.0.2.66"
	hold := make(chan struct{})
	var mu sync.Mutex
	inside := 0
	iapp.SetVerifying(e.svc, func(ip string) {
		if ip == floodIP {
			mu.Lock()
			inside++
			mu.Unlock()
			<-hold
		}
	})
	var fw sync.WaitGroup
	for i := range flood {
		fw.Add(1)
		go func() {
			defer fw.Done()
			_, _ = e.svc.Login(ctx, fmt.Sprintf("victim%d@example.com", i), "wrong", iapp.Request{IP: floodIP})
		}()
	}
	defer func() { close(hold); fw.Wait() }()
	// Every flood login is placed: holding a slot inside the seam, or waiting for one.
	for placed := 0; placed < flood; {
		mu.Lock()
		placed = inside + iapp.HashWaiting(e.svc)
		mu.Unlock()
		if placed < flood {
			time.Sleep(time.Millisecond)
		}
	}

	var wg sync.WaitGroup
	errCh := make(chan error, people)
	for i := range people {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := e.svc.Login(ctx, fmt.Sprintf("pilot%d@example.com", i), "correct horse", iapp.Request{IP: fmt.Sprintf("198.51.100.%d", i+1)})
			errCh <- err
		}()
	}
	wg.Wait()
	close(errCh)
	failed := map[errs.Code]int{}
	for err := range errCh {
		if err != nil {
			failed[errs.CodeOf(err)]++
		}
	}
	if len(failed) > 0 {
		t.Errorf("%d logins from other addresses during the flood: refused %v; want all in", people, failed)
	}
}

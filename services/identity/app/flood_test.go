package app_test

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/services/identity/internal/domain"
)

// production is the argon2id cost of production (OWASP: m=19 MiB, t=2, p=1): the flood
// and memory findings are about what a real hash costs, so these tests pay it.
var production = map[string]string{"IDENTITY_ARGON2_MEMORY_KIB": "19456", "IDENTITY_ARGON2_TIME": "2"}

// floodSettings are production's cost with a wait for a work area no loaded machine
// reaches: the flood tests assert who is served, never how fast, so a login that queues
// behind 100 others on two busy cores must not run out of IDENTITY_HASH_WAIT (30 s, which
// 100 logins at this cost come near when other suites share the cores).
var floodSettings = map[string]string{"IDENTITY_ARGON2_MEMORY_KIB": "19456", "IDENTITY_ARGON2_TIME": "2", "IDENTITY_HASH_WAIT": "1h"}

const floodPassword = "correct horse battery"

// seedAccounts creates n accounts pilotN@flood.test with floodPassword, written straight
// to the database with one hash (creating them through the routes would hash n times).
func seedAccounts(t *testing.T, dbURL string, n int) []string {
	t.Helper()
	h, err := domain.NewHasher(domain.DefaultArgon2)
	if err != nil {
		t.Fatal(err)
	}
	hash, err := h.Hash(floodPassword)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	emails := make([]string, n)
	for i := range emails {
		emails[i] = fmt.Sprintf("pilot%d@flood.test", i)
	}
	if _, err := conn.Exec(context.Background(), `INSERT INTO accounts (email, password_hash, kind)
		SELECT e, $2, 'individual' FROM unnest($1::text[]) AS e`, emails, hash); err != nil {
		t.Fatal(err)
	}
	return emails
}

// device is one browser at one loopback address: it keeps the cookies the store sets.
type device struct {
	ip      string
	client  *http.Client
	mu      sync.Mutex
	cookies map[string]string
}

func newDevice(ip string) *device {
	return &device{ip: ip, client: fromAddr(ip), cookies: map[string]string{}}
}

// login posts a login and answers its status.
func (d *device) login(t *testing.T, base, email, password string) int {
	req, _ := http.NewRequest("POST", base+"/pricing/api/login", strings.NewReader(`{"username":"`+email+`","password":"`+password+`"}`))
	req.Header.Set("Content-Type", "application/json")
	d.mu.Lock()
	parts := []string{auth.XSRFCookie + "=x"}
	for k, v := range d.cookies {
		if k != auth.XSRFCookie {
			parts = append(parts, k+"="+v)
		}
	}
	d.mu.Unlock()
	req.Header.Set("Cookie", strings.Join(parts, "; "))
	req.Header.Set(auth.XSRFHeader, "x")
	resp, err := d.client.Do(req)
	if err != nil {
		t.Error(err)
		return 0
	}
	defer resp.Body.Close()
	d.mu.Lock()
	for _, c := range resp.Cookies() {
		if c.Name != auth.SessionCookie && c.Name != auth.XSRFCookie {
			d.cookies[c.Name] = c.Value
		}
	}
	d.mu.Unlock()
	return resp.StatusCode
}

// flood sends wrong passwords from 60 loopback addresses until stop is closed: for unknown
// e-mails (the finding) and for the known accounts (guessing their passwords), so it
// holds password-hash slots too. It answers once every address has had an answer.
func flood(t *testing.T, base string, known []string, stop <-chan struct{}) (running <-chan struct{}, done func()) {
	const addresses = 60
	var wg sync.WaitGroup
	var answered atomic.Int32
	started := make(chan struct{})
	var once sync.Once
	for a := range addresses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := newDevice(fmt.Sprintf("127.0.2.%d", a+1))
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				email := fmt.Sprintf("nobody%d-%d@flood.test", a, i)
				if i%2 == 1 {
					email = known[(a+i)%len(known)]
				}
				d.login(t, base, email, fmt.Sprintf("guess-%d-%d", a, i))
				if i == 0 && answered.Add(1) == addresses {
					once.Do(func() { close(started) })
				}
			}
		}()
	}
	return started, wg.Wait
}

// Correct logins from devices that logged in before go through while 60 addresses flood
// the login with wrong passwords (OWASP device cookies). Before, the flood's hashes held
// every hashing slot and 20 of 20 such logins were answered 429 'The service is busy'.
func TestKnownDevicesLogInDuringAWrongPasswordFlood(t *testing.T) {
	t.Parallel()
	r := start(t, floodSettings)
	const people = 20
	emails := seedAccounts(t, r.dbURL, people)
	devices := make([]*device, people)
	for i := range devices {
		devices[i] = newDevice(fmt.Sprintf("127.0.3.%d", i+1))
		if code := devices[i].login(t, r.base, emails[i], floodPassword); code != 200 {
			t.Fatalf("first login of %s = %d", emails[i], code)
		}
	}
	stop := make(chan struct{})
	running, wait := flood(t, r.base, emails, stop)
	<-running
	var ok atomic.Int32
	codes := make([]int, people)
	var wg sync.WaitGroup
	for i, d := range devices {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = d.login(t, r.base, emails[i], floodPassword)
			if codes[i] == 200 {
				ok.Add(1)
			}
		}()
	}
	wg.Wait()
	close(stop)
	wait()
	t.Logf("known devices during the flood: %d of %d logged in (%v)", ok.Load(), people, codes)
	if ok.Load() < people-1 {
		t.Errorf("%d of %d correct logins from known devices during the flood, want at least %d: %v", ok.Load(), people, people-1, codes)
	}
}

// 100 concurrent correct logins from 100 addresses are served, queued for the hashing
// pool rather than refused. Before, 76 of 100 were answered 429 'The service is busy'
// after the pool's 3 s wait.
func TestHundredConcurrentLoginsFromHundredAddresses(t *testing.T) {
	t.Parallel()
	r := start(t, floodSettings)
	const people = 100
	emails := seedAccounts(t, r.dbURL, people)
	var ok atomic.Int32
	codes := map[int]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range people {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code := newDevice(fmt.Sprintf("127.0.4.%d", i+1)).login(t, r.base, emails[i], floodPassword)
			mu.Lock()
			codes[code]++
			mu.Unlock()
			if code == 200 {
				ok.Add(1)
			}
		}()
	}
	wg.Wait()
	t.Logf("100 concurrent logins: %v", codes)
	if ok.Load() < 95 {
		t.Errorf("%d of %d concurrent correct logins succeeded, want at least 95: %v", ok.Load(), people, codes)
	}
}

// 16 concurrent logins at the production cost allocate, and so grow the process by, at
// most 128 MiB: the hashes run in the pool's fixed work areas (sized from its memory
// budget). Before, each hash allocated its 19 MiB afresh (16 logins: 304 MiB of garbage),
// and a process with a live heap let that garbage pile up to its GC goal: 4 concurrent
// logins took a process from 519 to 1,215 MB.
//
//layercheck:serial it measures what the process allocates: other tests' allocations beside it would count
func TestSixteenConcurrentLoginsAtConstantMemory(t *testing.T) {
	r := start(t, production)
	const people = 16
	emails := seedAccounts(t, r.dbURL, people)
	devices := make([]*device, people)
	for i := range devices {
		devices[i] = newDevice(fmt.Sprintf("127.0.5.%d", i+1))
	}
	// A first login warms the connections and the HTTP clients.
	if code := newDevice("127.0.5.200").login(t, r.base, emails[0], floodPassword); code != 200 {
		t.Fatalf("warm-up login = %d", code)
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var wg sync.WaitGroup
	codes := make([]int, people)
	for i, d := range devices {
		wg.Add(1)
		go func() { defer wg.Done(); codes[i] = d.login(t, r.base, emails[i], floodPassword) }()
	}
	wg.Wait()
	runtime.ReadMemStats(&after)
	for i, c := range codes {
		if c != 200 {
			t.Errorf("login %d = %d, want 200", i, c)
		}
	}
	// What the process allocated bounds what its heap can have grown by, whatever the GC
	// did meanwhile (the service runs in this test's process).
	allocated := (after.TotalAlloc - before.TotalAlloc) >> 20
	t.Logf("16 concurrent logins: %d MiB allocated, heap grew %d MiB", allocated, int64(after.HeapSys-before.HeapSys)>>20)
	if allocated > 128 {
		t.Errorf("16 concurrent logins allocated %d MiB, want at most 128", allocated)
	}
}

package config

import (
	"strings"
	"testing"
	"time"
)

type sample struct {
	Platform
	Name    string        `env:"NAME" default:"x" doc:"a name"`
	Count   int           `env:"COUNT" default:"3"`
	Wait    time.Duration `env:"WAIT" default:"1s"`
	On      bool          `env:"ON" default:"true"`
	Brokers []string      `env:"BROKERS" default:"a:1, b:2"`
}

func lookup(m map[string]string) Lookup {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestDefaultsAndOverrides(t *testing.T) {
	t.Parallel()
	var s sample
	if err := LoadFrom(&s, lookup(map[string]string{"COUNT": "7", "GRPC_ADDR": "127.0.0.1:1"})); err != nil {
		t.Fatal(err)
	}
	if s.Name != "x" || s.Count != 7 || s.Wait != time.Second || !s.On || len(s.Brokers) != 2 || s.Brokers[1] != "b:2" {
		t.Errorf("loaded %+v", s)
	}
	if s.GRPCAddr != "127.0.0.1:1" || s.HTTPAddr != ":8080" || s.ShutdownTimeout != 20*time.Second {
		t.Errorf("embedded platform config %+v", s.Platform)
	}
}

func TestBadValueNamesTheVariable(t *testing.T) {
	t.Parallel()
	var s sample
	err := LoadFrom(&s, lookup(map[string]string{"WAIT": "soon"}))
	if err == nil || !strings.Contains(err.Error(), "WAIT") || !strings.Contains(err.Error(), "soon") {
		t.Errorf("LoadFrom(WAIT=soon) = %v", err)
	}
}

func TestDescribeListsEveryVariable(t *testing.T) {
	t.Parallel()
	vars := Describe(&sample{})
	names := map[string]Var{}
	for _, v := range vars {
		names[v.Name] = v
	}
	for _, n := range []string{"NAME", "COUNT", "LOG_LEVEL", "SHUTDOWN_TIMEOUT", "OTEL_EXPORTER_OTLP_ENDPOINT"} {
		if _, ok := names[n]; !ok {
			t.Errorf("Describe lacks %s", n)
		}
	}
	if names["NAME"].Doc != "a name" || names["COUNT"].Default != "3" {
		t.Errorf("Describe = %+v", names)
	}
}

func TestServiceDefaultsKeepSetValues(t *testing.T) {
	t.Parallel()
	p, d := Platform{}, Database{}
	ServiceDefaults("billing", &p, &d)
	if p.ServiceName != "billing" || d.URL != "postgres://postgres@127.0.0.1:5432/hangar_billing?sslmode=disable" {
		t.Errorf("defaults = %q, %q", p.ServiceName, d.URL)
	}
	p, d = Platform{ServiceName: "x"}, Database{URL: "postgres://db/other"}
	ServiceDefaults("billing", &p, &d)
	if p.ServiceName != "x" || d.URL != "postgres://db/other" {
		t.Errorf("set values overwritten: %q, %q", p.ServiceName, d.URL)
	}
}

func TestDefaultPoolKeepsASetSize(t *testing.T) {
	t.Parallel()
	unset, set := Database{}, Database{MaxConns: 5}
	unset.DefaultPool(16)
	set.DefaultPool(16)
	if unset.MaxConns != 16 || set.MaxConns != 5 {
		t.Errorf("pool sizes %d and %d, want the service's 16 and the set 5", unset.MaxConns, set.MaxConns)
	}
}

type secrets struct {
	Key     string `env:"SOME_KEY" secret:"true" dev:"dev-key-not-for-production"`
	Keys    string `env:"SOME_KEYS" secret:"true" dev:"dev=dev-list-key-not-for-production"`
	Captcha string `env:"CAPTCHA_SECRET" secret:"true" secretWhen:"CAPTCHA_ON" dev:""`
	Pass    string `env:"MAIL_PASSWORD" secret:"true" secretWhen:"MAIL_USER" dev:""`
	Plain   string `env:"PLAIN" default:"p"`
}

// Issue 26: a key had a public development default in every deployment (anyone who knew
// CHECKOUT_QUOTE_KEY's could forge receipt cookies). A secret now has none outside
// development mode: the loader refuses and names the variable.
func TestSecretsAreRequiredOutsideDevelopmentMode(t *testing.T) {
	t.Parallel()
	env := func(kv ...string) Lookup {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	var c secrets
	err := LoadFrom(&c, env(DevModeVar, "false"))
	if err == nil || !strings.Contains(err.Error(), "SOME_KEY") || strings.Contains(err.Error(), "CAPTCHA_SECRET") {
		t.Fatalf("production without the key: %v, want an error naming SOME_KEY (only)", err)
	}
	if err := LoadFrom(&c, env(DevModeVar, "false", "CAPTCHA_ON", "true", "SOME_KEY", "k", "SOME_KEYS", "k=v")); err == nil || !strings.Contains(err.Error(), "CAPTCHA_SECRET") {
		t.Fatalf("the verifier on without its secret: %v, want an error naming CAPTCHA_SECRET", err)
	}
	if err := LoadFrom(&c, env(DevModeVar, "false", "MAIL_USER", "relay-user", "SOME_KEY", "k", "SOME_KEYS", "k=v")); err == nil || !strings.Contains(err.Error(), "MAIL_PASSWORD") {
		t.Fatalf("a mail user without its password: %v, want an error naming MAIL_PASSWORD", err)
	}
	c = secrets{}
	if err := LoadFrom(&c, env(DevModeVar, "false", "SOME_KEY", "real-key", "SOME_KEYS", "k=v")); err != nil || c.Key != "real-key" || c.Plain != "p" {
		t.Fatalf("production with the key = %+v, %v", c, err)
	}
	c = secrets{}
	if err := LoadFrom(&c, env(DevModeVar, "true")); err != nil || c.Key != "dev-key-not-for-production" {
		t.Fatalf("development mode = %+v, %v, want the marked development key", c, err)
	}
	// Issue 41: a secret set to its published development value was accepted outside
	// development mode (anyone reading the repository knows it).
	for _, v := range []string{"dev-key-not-for-production", " dev-key-not-for-production ", "new-key,dev-key-not-for-production"} {
		c = secrets{}
		if err := LoadFrom(&c, env(DevModeVar, "false", "SOME_KEY", v, "SOME_KEYS", "k=v")); err == nil || !strings.Contains(err.Error(), "SOME_KEY ") || !strings.Contains(err.Error(), "development value") {
			t.Errorf("production with SOME_KEY=%q (the development value) = %v, want an error naming SOME_KEY", v, err)
		}
	}
	for _, v := range []string{"dev=dev-list-key-not-for-production", "prod=dev-list-key-not-for-production", "new=k,dev=dev-list-key-not-for-production"} {
		c = secrets{}
		if err := LoadFrom(&c, env(DevModeVar, "false", "SOME_KEY", "k", "SOME_KEYS", v)); err == nil || !strings.Contains(err.Error(), "SOME_KEYS") {
			t.Errorf("production with SOME_KEYS=%q (the development key) = %v, want an error naming SOME_KEYS", v, err)
		}
	}
	// A test binary is in development mode unless told otherwise.
	if on, err := DevMode(env()); !on || err != nil {
		t.Errorf("DevMode in a test = %v, %v", on, err)
	}
	if err := LoadFrom(&c, env(DevModeVar, "maybe")); err == nil || !strings.Contains(err.Error(), DevModeVar) {
		t.Errorf("a malformed %s = %v", DevModeVar, err)
	}
}

type storeDetails struct {
	Seller string `env:"SELLER" required:"true" dev:"Placeholder Ltd" doc:"printed on invoices"`
	Sales  string `env:"SALES" required:"true" format:"email" dev:"sales@placeholder.example"`
	Store  string `env:"STORE_URL" required:"true" format:"https" dev:"http://localhost:8080"`
	From   string `env:"FROM" format:"email" default:"Shop <shop@hangar-store.ie>"`
}

// Issue 31: the seller printed on invoices, the sales address and the like had placeholder
// defaults in every deployment. A required setting now has its value only in development
// mode; outside it the loader refuses to start, naming each unset one, and refuses the
// development placeholder too.
func TestRequiredSettingsHaveNoDefaultOutsideDevelopmentMode(t *testing.T) {
	t.Parallel()
	var c storeDetails
	err := LoadFrom(&c, lookup(map[string]string{DevModeVar: "false"}))
	if err == nil || !strings.Contains(err.Error(), "SELLER, SALES, STORE_URL must be set") {
		t.Fatalf("production without the store's details: %v, want a refusal naming SELLER, SALES and STORE_URL", err)
	}
	err = LoadFrom(&c, lookup(map[string]string{DevModeVar: "false", "SELLER": "Placeholder Ltd", "SALES": "sales@hangar-store.ie", "STORE_URL": "https://hangar-store.ie"}))
	if err == nil || !strings.Contains(err.Error(), "SELLER must be set") || strings.Contains(err.Error(), "SALES") {
		t.Fatalf("production with the development seller: %v, want a refusal naming SELLER (only)", err)
	}
	c = storeDetails{}
	if err := LoadFrom(&c, lookup(map[string]string{DevModeVar: "false", "SELLER": "Real Ltd", "SALES": "sales@hangar-store.ie", "STORE_URL": "https://hangar-store.ie"})); err != nil ||
		c.Seller != "Real Ltd" || c.Sales != "sales@hangar-store.ie" || c.Store != "https://hangar-store.ie" {
		t.Fatalf("production with the details = %+v, %v", c, err)
	}
	c = storeDetails{}
	if err := LoadFrom(&c, lookup(map[string]string{DevModeVar: "true"})); err != nil || c.Seller != "Placeholder Ltd" || c.Store != "http://localhost:8080" {
		t.Fatalf("development mode = %+v, %v, want the development values", c, err)
	}
	if d := Describe(&storeDetails{}); d[0].Default != "(required outside development; development: Placeholder Ltd)" {
		t.Errorf("Describe = %+v", d[0])
	}
}

func TestFormatsAreValidated(t *testing.T) {
	t.Parallel()
	good := map[string]string{DevModeVar: "false", "SELLER": "Real Ltd", "SALES": "sales@hangar-store.ie", "STORE_URL": "https://hangar-store.ie/shop"}
	for name, bad := range map[string]string{
		"SALES":     "sales at store",
		"STORE_URL": "http://store.test",
		"FROM":      "Shop <shop>",
		// The reserved example domains are placeholders outside development mode.
		"STORE_URL ": "https://store.example.com",
		"SALES ":     "sales@hangar.example",
	} {
		name = strings.TrimSpace(name)
		env := map[string]string{}
		for k, v := range good {
			env[k] = v
		}
		env[name] = bad
		var c storeDetails
		if err := LoadFrom(&c, lookup(env)); err == nil || !strings.Contains(err.Error(), name+"=") {
			t.Errorf("%s=%q: %v, want an error naming it", name, bad, err)
		}
	}
	for _, ok := range []string{"https://hangar-store.ie", "http://127.0.0.1:8080"} {
		var c storeDetails
		if err := LoadFrom(&c, lookup(map[string]string{DevModeVar: "true", "STORE_URL": ok})); err != nil {
			t.Errorf("development STORE_URL=%q: %v", ok, err)
		}
	}
	var c storeDetails
	if err := LoadFrom(&c, lookup(map[string]string{DevModeVar: "true", "STORE_URL": "ftp://store.test"})); err == nil {
		t.Error("development STORE_URL=ftp://store.test accepted")
	}
}

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
	var s sample
	err := LoadFrom(&s, lookup(map[string]string{"WAIT": "soon"}))
	if err == nil || !strings.Contains(err.Error(), "WAIT") || !strings.Contains(err.Error(), "soon") {
		t.Errorf("LoadFrom(WAIT=soon) = %v", err)
	}
}

func TestDescribeListsEveryVariable(t *testing.T) {
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
	unset, set := Database{}, Database{MaxConns: 5}
	unset.DefaultPool(16)
	set.DefaultPool(16)
	if unset.MaxConns != 16 || set.MaxConns != 5 {
		t.Errorf("pool sizes %d and %d, want the service's 16 and the set 5", unset.MaxConns, set.MaxConns)
	}
}

type secrets struct {
	Key     string `env:"SOME_KEY" secret:"true" dev:"dev-key-not-for-production"`
	Captcha string `env:"CAPTCHA_SECRET" secret:"true" secretWhen:"CAPTCHA_ON" dev:""`
	Pass    string `env:"MAIL_PASSWORD" secret:"true" secretWhen:"MAIL_USER" dev:""`
	Plain   string `env:"PLAIN" default:"p"`
}

// Issue 26: a key had a public development default in every deployment (anyone who knew
// CHECKOUT_QUOTE_KEY's could forge receipt cookies). A secret now has none outside
// development mode: the loader refuses and names the variable.
func TestSecretsAreRequiredOutsideDevelopmentMode(t *testing.T) {
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
	if err := LoadFrom(&c, env(DevModeVar, "false", "CAPTCHA_ON", "true", "SOME_KEY", "k")); err == nil || !strings.Contains(err.Error(), "CAPTCHA_SECRET") {
		t.Fatalf("the verifier on without its secret: %v, want an error naming CAPTCHA_SECRET", err)
	}
	if err := LoadFrom(&c, env(DevModeVar, "false", "MAIL_USER", "relay-user", "SOME_KEY", "k")); err == nil || !strings.Contains(err.Error(), "MAIL_PASSWORD") {
		t.Fatalf("a mail user without its password: %v, want an error naming MAIL_PASSWORD", err)
	}
	c = secrets{}
	if err := LoadFrom(&c, env(DevModeVar, "false", "SOME_KEY", "real-key")); err != nil || c.Key != "real-key" || c.Plain != "p" {
		t.Fatalf("production with the key = %+v, %v", c, err)
	}
	c = secrets{}
	if err := LoadFrom(&c, env(DevModeVar, "true")); err != nil || c.Key != "dev-key-not-for-production" {
		t.Fatalf("development mode = %+v, %v, want the marked development key", c, err)
	}
	// A test binary is in development mode unless told otherwise.
	if on, err := DevMode(env()); !on || err != nil {
		t.Errorf("DevMode in a test = %v, %v", on, err)
	}
	if err := LoadFrom(&c, env(DevModeVar, "maybe")); err == nil || !strings.Contains(err.Error(), DevModeVar) {
		t.Errorf("a malformed %s = %v", DevModeVar, err)
	}
}

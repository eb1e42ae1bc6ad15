// Package config loads typed configuration from the environment. A config is a struct whose
// fields carry `env:"NAME"`, `default:"value"` and `doc:"..."` tags; nested structs are
// walked. A field tagged `secret:"true"` has no default (see DevModeVar); one tagged
// `required:"true"` is a deployment's own detail (a seller's name, a sales address) with a
// documented development value only (see DevModeVar); `format:"email"` or `format:"https"`
// validates a set value. Supported kinds: string, bool, int, int64, float64 (for ratios only), time.Duration
// and []string (comma separated). Unknown-format values are an error naming the variable.
package config

import (
	"errors"
	"fmt"
	"io"
	"net/mail"
	"net/url"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"text/tabwriter"
	"time"
)

// Lookup answers an environment variable; os.LookupEnv in production, a map in tests.
type Lookup func(name string) (string, bool)

// Load fills cfg (a pointer to a struct) from the process environment.
func Load(cfg any) error { return LoadFrom(cfg, os.LookupEnv) }

// DevModeVar turns development mode on or off. Outside development mode every secret (a
// field tagged `secret:"true"`) must be set: a key has no default a stranger could know.
// In development mode an unset secret takes its `dev:"..."` value, a value marked as a
// development one. A required setting (`required:"true"`: what customers see of the store,
// such as the seller printed on invoices) is the same, except that it is no secret; outside
// development mode it may not be its development value either, so a placeholder never
// reaches customers. Unset, development mode is on only in a test binary (go test), so a
// service built for production never runs with development keys by accident.
const DevModeVar = "HANGAR_DEV_MODE"

// DevMode reports whether lookup says the process runs in development mode (DevModeVar).
func DevMode(lookup Lookup) (bool, error) {
	raw, ok := lookup(DevModeVar)
	if !ok || strings.TrimSpace(raw) == "" {
		return testing.Testing(), nil
	}
	on, err := strconv.ParseBool(strings.TrimSpace(raw))
	if err != nil {
		return false, fmt.Errorf("config: %s=%q: %w", DevModeVar, raw, err)
	}
	return on, nil
}

// LoadFrom fills cfg from lookup, using each field's default when the variable is unset.
// A secret field (`secret:"true"`) or a required one (`required:"true"`) has no default:
// unset outside development mode it is an error naming the variable; in development mode
// it takes its `dev` value. A field with a `format` tag is checked (checkFormat).
func LoadFrom(cfg any, lookup Lookup) error {
	v := reflect.ValueOf(cfg)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("config: want a pointer to a struct, got %T", cfg)
	}
	dev, err := DevMode(lookup)
	if err != nil {
		return err
	}
	var missing, required, invalid, published []string
	err = walk(v.Elem(), func(f reflect.StructField, fv reflect.Value) error {
		name := f.Tag.Get("env")
		raw, ok := lookup(name)
		if !ok {
			raw = f.Tag.Get("default")
		}
		switch {
		case isSecret(f, lookup) && strings.TrimSpace(raw) == "":
			if !dev {
				missing = append(missing, name)
				return nil
			}
			raw = f.Tag.Get("dev")
		case isSecret(f, lookup) && !dev && publishedDevValue(raw, f.Tag.Get("dev")):
			published = append(published, name)
			return nil
		case f.Tag.Get("required") == "true":
			if strings.TrimSpace(raw) == "" && dev {
				raw = f.Tag.Get("dev")
			} else if !dev && (strings.TrimSpace(raw) == "" || strings.TrimSpace(raw) == f.Tag.Get("dev")) {
				required = append(required, name)
				return nil
			}
		}
		if err := set(fv, raw); err != nil {
			return fmt.Errorf("config: %s=%q: %w", name, raw, err)
		}
		if err := checkFormat(f.Tag.Get("format"), strings.TrimSpace(raw), dev); err != nil {
			invalid = append(invalid, fmt.Sprintf("%s=%q: %v", name, raw, err))
		}
		return nil
	})
	if err != nil {
		return err
	}
	var errs []error
	if len(missing) > 0 {
		errs = append(errs, fmt.Errorf("config: %s must be set (a secret has no default outside development mode; %s=true only in development)",
			strings.Join(missing, ", "), DevModeVar))
	}
	if len(published) > 0 {
		errs = append(errs, fmt.Errorf("config: %s is set to its published development value (it is in the repository, so anyone knows it); outside development mode set this deployment's own secret",
			strings.Join(published, ", ")))
	}
	if len(required) > 0 {
		errs = append(errs, fmt.Errorf("config: %s must be set to this deployment's own value (outside development mode there is no default, and the development placeholder is refused; %s=true only in development)",
			strings.Join(required, ", "), DevModeVar))
	}
	for _, bad := range invalid {
		errs = append(errs, errors.New("config: "+bad))
	}
	return errors.Join(errs...)
}

// checkFormat validates a set value by its field's `format` tag: "email" a mail address
// (net/mail; a display name is allowed, as in a From header), "https" an absolute https URL
// with a host (development mode also takes http, the dev stack has no certificates). An
// empty value is left to `required`.
func checkFormat(format, raw string, dev bool) error {
	if raw == "" {
		return nil
	}
	switch format {
	case "":
		return nil
	case "email":
		a, err := mail.ParseAddress(raw)
		if err != nil {
			return fmt.Errorf("not an e-mail address: %w", err)
		}
		return placeholderHost(a.Address[strings.LastIndexByte(a.Address, '@')+1:], dev)
	case "https":
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" || (u.Scheme != "https" && (!dev || u.Scheme != "http")) {
			return errors.New("not an https:// URL with a host")
		}
		return placeholderHost(u.Hostname(), dev)
	}
	return fmt.Errorf("unknown format %q", format)
}

// placeholderHost refuses, outside development mode, the domains reserved for examples and
// tests (RFC 2606, RFC 6761): a customer would be sent there.
func placeholderHost(host string, dev bool) error {
	if dev {
		return nil
	}
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	for _, tld := range []string{"example", "test", "invalid", "localhost"} {
		if h == tld || strings.HasSuffix(h, "."+tld) {
			return fmt.Errorf("%s is a reserved example domain, not this deployment's", host)
		}
	}
	for _, d := range []string{"example.com", "example.net", "example.org"} {
		if h == d || strings.HasSuffix(h, "."+d) {
			return fmt.Errorf("%s is a reserved example domain, not this deployment's", host)
		}
	}
	return nil
}

// publishedDevValue reports whether the secret raw is, or for a list (a,b) holds, an entry
// of its development value dev, also under another id (id=secret): a value in the
// repository is no secret.
func publishedDevValue(raw, dev string) bool {
	devs := map[string]bool{}
	for _, d := range entries(dev) {
		devs[d] = true
	}
	for _, r := range append(entries(raw), strings.TrimSpace(raw)) {
		if devs[r] {
			return true
		}
	}
	return false
}

// entries are the secrets of a list value: each comma-separated entry, and of an
// id=secret entry its secret too.
func entries(v string) []string {
	var out []string
	for _, e := range strings.Split(v, ",") {
		if e = strings.TrimSpace(e); e == "" {
			continue
		}
		out = append(out, e)
		if _, secret, ok := strings.Cut(e, "="); ok && strings.TrimSpace(secret) != "" {
			out = append(out, strings.TrimSpace(secret))
		}
	}
	return out
}

// isSecret reports whether f is a secret the process needs: tagged `secret:"true"`, and
// when it also names another variable (`secretWhen:"VAR"`: the secret is only used with
// that feature on, or that user set) only while that variable is set and not false.
func isSecret(f reflect.StructField, lookup Lookup) bool {
	if f.Tag.Get("secret") != "true" {
		return false
	}
	when := f.Tag.Get("secretWhen")
	if when == "" {
		return true
	}
	raw, _ := lookup(when)
	raw = strings.TrimSpace(raw)
	if b, err := strconv.ParseBool(raw); err == nil {
		return b
	}
	return raw != ""
}

// Var documents one variable.
type Var struct {
	Name, Default, Doc string
}

// Describe lists the variables cfg reads, for docs and --help.
func Describe(cfg any) []Var {
	var out []Var
	_ = walk(reflect.ValueOf(cfg).Elem(), func(f reflect.StructField, _ reflect.Value) error {
		def := f.Tag.Get("default")
		switch {
		case f.Tag.Get("secret") == "true":
			def = "(required; secret)"
		case f.Tag.Get("required") == "true":
			def = fmt.Sprintf("(required outside development; development: %s)", f.Tag.Get("dev"))
		}
		out = append(out, Var{Name: f.Tag.Get("env"), Default: def, Doc: f.Tag.Get("doc")})
		return nil
	})
	return out
}

func walk(v reflect.Value, visit func(reflect.StructField, reflect.Value) error) error {
	t := v.Type()
	for i := range t.NumField() {
		f, fv := t.Field(i), v.Field(i)
		if !f.IsExported() {
			continue
		}
		if _, ok := f.Tag.Lookup("env"); !ok {
			if fv.Kind() == reflect.Struct {
				if err := walk(fv, visit); err != nil {
					return err
				}
			}
			continue
		}
		if err := visit(f, fv); err != nil {
			return err
		}
	}
	return nil
}

var durationType = reflect.TypeFor[time.Duration]()

func set(fv reflect.Value, raw string) error {
	raw = strings.TrimSpace(raw)
	if fv.Type() == durationType {
		if raw == "" {
			fv.SetInt(0)
			return nil
		}
		d, err := time.ParseDuration(raw)
		if err != nil {
			return err
		}
		fv.SetInt(int64(d))
		return nil
	}
	switch fv.Kind() {
	case reflect.String:
		fv.SetString(raw)
	case reflect.Bool:
		if raw == "" {
			fv.SetBool(false)
			return nil
		}
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return err
		}
		fv.SetBool(b)
	case reflect.Int, reflect.Int64:
		if raw == "" {
			fv.SetInt(0)
			return nil
		}
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			return err
		}
		fv.SetInt(n)
	case reflect.Float64:
		if raw == "" {
			fv.SetFloat(0)
			return nil
		}
		x, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return err
		}
		fv.SetFloat(x)
	case reflect.Slice:
		if fv.Type().Elem().Kind() != reflect.String {
			return fmt.Errorf("unsupported slice type %s", fv.Type())
		}
		var items []string
		for _, s := range strings.Split(raw, ",") {
			if s = strings.TrimSpace(s); s != "" {
				items = append(items, s)
			}
		}
		fv.Set(reflect.ValueOf(items))
	default:
		return fmt.Errorf("unsupported kind %s", fv.Kind())
	}
	return nil
}

// Platform is the configuration every service shares. Services embed it in their own Config.
type Platform struct {
	ServiceName     string        `env:"OTEL_SERVICE_NAME" default:"" doc:"service name in traces and logs; defaults to the binary's service"`
	LogLevel        string        `env:"LOG_LEVEL" default:"info" doc:"debug, info, warn or error"`
	LogFormat       string        `env:"LOG_FORMAT" default:"json" doc:"json or text"`
	GRPCAddr        string        `env:"GRPC_ADDR" default:":9090" doc:"gRPC listen address"`
	HTTPAddr        string        `env:"HTTP_ADDR" default:":8080" doc:"public REST (grpc-gateway) listen address"`
	AdminAddr       string        `env:"ADMIN_ADDR" default:":9464" doc:"admin listen address: /healthz, /readyz, /metrics"`
	OTLPEndpoint    string        `env:"OTEL_EXPORTER_OTLP_ENDPOINT" default:"" doc:"OTLP/gRPC endpoint for traces; unset disables export"`
	TraceSampleRate float64       `env:"OTEL_TRACES_SAMPLER_RATIO" default:"1" doc:"parent-based trace sampling ratio for root spans"`
	ShutdownTimeout time.Duration `env:"SHUTDOWN_TIMEOUT" default:"20s" doc:"grace period for in-flight requests on SIGTERM"`
	// Admission: how many requests one process works on at once before it sheds more at
	// once, with 503 "The store is busy" and a Retry-After (internal/platform/server).
	AdmitReads    int `env:"ADMISSION_READS" default:"512" doc:"public read requests (GET, HEAD, OPTIONS) in flight at once; more are answered 503 'The store is busy' with Retry-After (0: no bound)"`
	AdmitWrites   int `env:"ADMISSION_WRITES" default:"128" doc:"public write requests (every other method) in flight at once; more are shed as reads are (0: no bound)"`
	AdmitInternal int `env:"ADMISSION_GRPC" default:"256" doc:"internal gRPC calls in flight at once (health checks never count); more are answered UNAVAILABLE STORE_BUSY with a retry delay (0: no bound)"`
}

// Database is the configuration of a service that owns a PostgreSQL database.
type Database struct {
	URL string `env:"DATABASE_URL" default:"" doc:"PostgreSQL URL of the service's own database (each service has its own)"`
	// MaxConns bounds the pool; 0 takes the service's connection budget.
	MaxConns int `env:"DATABASE_MAX_CONNS" default:"0" doc:"pool size; 0: the service's connection budget (internal/platform/db/budget.go)"`
	// IdleTimeout closes pooled connections unused this long: a store at rest holds only
	// what its background work uses.
	IdleTimeout time.Duration `env:"DATABASE_IDLE_TIMEOUT" default:"30s" doc:"a pooled connection unused this long is closed"`
	// CreateIfMissing lets dev and tests create the database; production provisions it.
	CreateIfMissing bool `env:"DATABASE_CREATE" default:"false" doc:"create the database if it does not exist (dev only)"`
	// Migrate lets the serving process apply its migrations. In the cluster a release's
	// migrate Job applies them once, before any new pod starts, and the replicas only wait
	// for the schema (docs/architecture.md, "Schema changes roll").
	Migrate bool `env:"DB_MIGRATE" default:"true" doc:"apply migrations at start; false: wait until the schema has every migration (the release's migrate Job applies them)"`
}

// DefaultPool sets the pool size a service needs unless DATABASE_MAX_CONNS set one: pgx's
// own default (max(4, NumCPU)) suits work bound by the CPU, not a service whose requests
// wait on commits.
func (d *Database) DefaultPool(n int) {
	if d.MaxConns == 0 {
		d.MaxConns = n
	}
}

// Kafka is the configuration of a service that publishes or consumes events.
type Kafka struct {
	Brokers []string `env:"KAFKA_BROKERS" default:"" doc:"comma-separated Kafka bootstrap brokers"`
	// CommitInterval batches consumers' offset commits; see kafka.ConsumerConfig.
	CommitInterval time.Duration `env:"KAFKA_COMMIT_INTERVAL" default:"1s" doc:"how often event consumers commit handled offsets; a crash redelivers at most this much, which the inbox skips"`
}

// PrintEnv writes the variables cfg (a pointer to a config struct) reads, as a table.
func PrintEnv(out io.Writer, cfg any) {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VARIABLE\tDEFAULT\tMEANING")
	for _, v := range Describe(cfg) {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", v.Name, v.Default, v.Doc)
	}
	_ = tw.Flush()
}

// ServiceDefaults fills the settings whose defaults depend on which service reads them:
// its name in logs, traces and metrics, and (for a service with a database) its own
// database on the local development server, hangar_<service>. Set values are kept.
func ServiceDefaults(service string, p *Platform, d *Database) {
	if p.ServiceName == "" {
		p.ServiceName = service
	}
	if d != nil && d.URL == "" {
		d.URL = "postgres://postgres@127.0.0.1:5432/hangar_" + service + "?sslmode=disable"
	}
}

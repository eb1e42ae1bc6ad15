package images_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/moby/buildkit/frontend/dockerfile/parser"

	"github.com/hangar/hangar/deploy/images"
)

// recipe is what a Dockerfile's target stage says of its image.
type recipe struct {
	entrypoint []string
	user       string
	ports      []string
	labels     map[string]string
	copies     []copyInstr // COPY into the runtime image
	goBuilds   map[string]string
	stages     []string // every stage's name, in order
}

type copyInstr struct{ from, src, dst string }

var reGoBuild = regexp.MustCompile(`go build .*-o /out/((?:\s+\./\S+)+)`)

// parseDockerfile reads file with buildkit's own parser (the one docker build uses): the
// settings of the stage named target, and the binaries every `go build -o /out/` makes.
func parseDockerfile(t *testing.T, file, target string) recipe {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := parser.Parse(f)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	r := recipe{labels: map[string]string{}, goBuilds: map[string]string{}}
	stage := ""
	for _, n := range res.AST.Children {
		var args []string
		for a := n.Next; a != nil; a = a.Next {
			args = append(args, a.Value)
		}
		instr := strings.ToLower(n.Value)
		if instr == "from" {
			stage = ""
			if len(args) == 3 && strings.EqualFold(args[1], "as") {
				stage = args[2]
			}
			r.stages = append(r.stages, stage)
			continue
		}
		if instr == "run" {
			if m := reGoBuild.FindStringSubmatch(strings.Join(args, " ")); m != nil {
				for _, pkg := range strings.Fields(m[1]) {
					r.goBuilds[filepath.Base(pkg)] = pkg
				}
			}
			continue
		}
		if stage != target {
			continue
		}
		switch instr {
		case "entrypoint":
			if !n.Attributes["json"] {
				t.Fatalf("%s: ENTRYPOINT must be the exec (JSON) form: a distroless image has no shell", file)
			}
			r.entrypoint = args
		case "user":
			r.user = args[0]
		case "expose":
			for _, p := range args {
				if !strings.Contains(p, "/") {
					p += "/tcp"
				}
				r.ports = append(r.ports, p)
			}
		case "label":
			for i := 0; i+1 < len(args); i += 3 { // key, value, "=" separator
				v, err := strconv.Unquote(args[i+1])
				if err != nil {
					v = args[i+1]
				}
				r.labels[args[i]] = v
			}
		case "copy":
			c := copyInstr{src: args[0], dst: args[len(args)-1]}
			for _, fl := range n.Flags {
				if v, ok := strings.CutPrefix(fl, "--from="); ok {
					c.from = v
				}
			}
			r.copies = append(r.copies, c)
		}
	}
	return r
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// stubInputs are small stand-ins for the binaries and the host's CA bundle and zoneinfo:
// the test checks the image's shape, not the binaries'.
func stubInputs(t *testing.T, root string) images.Inputs {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("zoneinfo/UTC", "TZif2")
	write("zoneinfo/Europe/Berlin", "TZif2")
	write("site/index.html", "<!doctype html>")
	write("site/assets/app.js", "")
	return images.Inputs{
		Binary:   write("bin", "\x7fELF"),
		Site:     filepath.Join(dir, "site"),
		Routes:   filepath.Join(root, "web/apps/shell/src/routes.ts"),
		CACerts:  write("ca.crt", "-----BEGIN CERTIFICATE-----\n"),
		ZoneInfo: filepath.Join(dir, "zoneinfo"),
	}
}

// TestEveryDockerfileHasAnImage: the one Dockerfile's targets (its stages but build and
// site) are the deployables of `make images`, and no other Dockerfile lingers beside it.
func TestEveryDockerfileHasAnImage(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	for _, glob := range []string{"services/*/Dockerfile", "cmd/*/Dockerfile"} {
		m, err := filepath.Glob(filepath.Join(root, glob))
		if err != nil {
			t.Fatal(err)
		}
		if len(m) > 0 {
			t.Errorf("%v: the release recipe is %s, one target per image", m, images.Dockerfile)
		}
	}
	var targets []string
	for _, s := range parseDockerfile(t, filepath.Join(root, images.Dockerfile), "").stages {
		if s != "build" && s != "site" {
			targets = append(targets, s)
		}
	}
	var specs []string
	for _, s := range images.Specs() {
		specs = append(specs, s.Name)
	}
	sort.Strings(targets)
	sort.Strings(specs)
	if !slices.Equal(targets, specs) {
		t.Fatalf("%s targets %v, images.Specs %v: they must be the same list", images.Dockerfile, targets, specs)
	}
}

// TestImagesMatchDockerfiles builds every image as `make images` does and compares it with
// its Dockerfile: entrypoint, user, exposed ports, labels, the binary's package, and every
// file the Dockerfile copies into the runtime image; and the distroless nonroot base's
// files the services rely on.
func TestImagesMatchDockerfiles(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	for _, spec := range images.Specs() {
		t.Run(spec.Name, func(t *testing.T) {
			want := parseDockerfile(t, filepath.Join(root, images.Dockerfile), spec.Name)
			img, err := images.Build(spec, stubInputs(t, root))
			if err != nil {
				t.Fatal(err)
			}
			cf, err := img.ConfigFile()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(cf.Config.Entrypoint, want.entrypoint) {
				t.Errorf("entrypoint %q, Dockerfile %q", cf.Config.Entrypoint, want.entrypoint)
			}
			if cf.Config.User != want.user {
				t.Errorf("user %q, Dockerfile %q", cf.Config.User, want.user)
			}
			var ports []string
			for p := range cf.Config.ExposedPorts {
				ports = append(ports, p)
			}
			sort.Strings(ports)
			sort.Strings(want.ports)
			if !slices.Equal(ports, want.ports) {
				t.Errorf("exposed ports %v, Dockerfile %v", ports, want.ports)
			}
			for k, v := range want.labels {
				if cf.Config.Labels[k] != v {
					t.Errorf("label %s %q, Dockerfile %q", k, cf.Config.Labels[k], v)
				}
			}
			if len(cf.Config.Labels) != len(want.labels) {
				t.Errorf("labels %v, Dockerfile %v", cf.Config.Labels, want.labels)
			}
			if pkg := want.goBuilds[spec.Binary]; pkg != spec.Package {
				t.Errorf("binary %s built from %q, Dockerfile builds it from %q", spec.Binary, spec.Package, pkg)
			}

			files, err := images.Files(img)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range want.copies {
				h := files[strings.TrimPrefix(c.dst, "/")]
				if h == nil {
					t.Errorf("COPY %s %s: no %s in the image", c.src, c.dst, c.dst)
					continue
				}
				if c.from == "build" && h.Mode&0o111 == 0 {
					t.Errorf("%s: mode %o, want executable", c.dst, h.Mode)
				}
				if strings.HasSuffix(c.src, "/site") && h.Typeflag != '5' {
					t.Errorf("%s: want the site's directory", c.dst)
				}
			}
			// Nothing but what the Dockerfile copies lands under /hangar.
			for name := range files {
				if !strings.HasPrefix(name, "hangar/") {
					continue
				}
				ok := false
				for _, c := range want.copies {
					d := strings.TrimPrefix(c.dst, "/")
					if name == d || strings.HasPrefix(name, d+"/") {
						ok = true
					}
				}
				if !ok {
					t.Errorf("/%s is in the image, the Dockerfile copies no such file", name)
				}
			}
			// distroless/static nonroot: the user the chart runs, CA certificates, time zones,
			// a writable /tmp, and nothing else runnable (no shell).
			passwd := files["etc/passwd"]
			if passwd == nil {
				t.Fatal("no /etc/passwd")
			}
			for _, f := range []string{"etc/group", "etc/ssl/certs/ca-certificates.crt", "usr/share/zoneinfo/UTC", "usr/share/zoneinfo/Europe/Berlin"} {
				if files[f] == nil {
					t.Errorf("no /%s", f)
				}
			}
			if h := files["tmp"]; h == nil || h.Mode&0o1777 != 0o1777 {
				t.Errorf("/tmp must be a sticky world-writable directory (the chart mounts an emptyDir there, the base has it too)")
			}
			if h := files["home/nonroot"]; h == nil || h.Uid != images.NonRoot {
				t.Errorf("/home/nonroot must belong to %d", images.NonRoot)
			}
			for _, sh := range []string{"bin/sh", "bin/bash", "usr/bin/sh"} {
				if files[sh] != nil {
					t.Errorf("/%s: a distroless image has no shell", sh)
				}
			}
		})
	}
}

// TestBuildIsReproducible: equal inputs give equal digests, the key `make images` caches by.
func TestBuildIsReproducible(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	spec := images.Specs()[0]
	in := stubInputs(t, root)
	a, err := images.Build(spec, in)
	if err != nil {
		t.Fatal(err)
	}
	b, err := images.Build(spec, in)
	if err != nil {
		t.Fatal(err)
	}
	da, _ := a.Digest()
	db, _ := b.Digest()
	if da != db {
		t.Fatalf("two builds of the same inputs: %s and %s", da, db)
	}
	if err := os.WriteFile(in.Binary, []byte("\x7fELF changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := images.Build(spec, in)
	if err != nil {
		t.Fatal(err)
	}
	if dc, _ := c.Digest(); dc == da {
		t.Fatal("a changed binary kept the image's digest")
	}
}

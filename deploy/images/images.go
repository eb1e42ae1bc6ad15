// Package images assembles the OCI images of Hangar's deployables without a Docker daemon
// or a registry (`make images`): each image is the static binary (and, for web, the built
// site) on a base layer with the files of distroless/static's "nonroot" variant the services
// use (users, CA certificates, time zones, /tmp), with the entrypoint, user, ports and
// labels of its target in deploy/images/Dockerfile. The Dockerfile stays the release
// recipe where registries are reachable; images_test.go proves both agree.
package images

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// NonRoot is distroless's "nonroot" user and group, the one the chart's securityContext runs.
const NonRoot = 65532

// AdminPorts are a Go service's listeners: http (grpc-gateway REST), grpc, admin.
var adminPorts = []string{"8080/tcp", "9090/tcp", "9464/tcp"}

// Dockerfile is the release recipe of every image, relative to the repository root: one
// build stage, then one target per Spec, named Spec.Name.
const Dockerfile = "deploy/images/Dockerfile"

// Spec is one deployable's image.
type Spec struct {
	Name        string   // image repository under the registry; the chart's image.repository
	Package     string   // the main package, relative to the repository root
	Binary      string   // the binary's name under /hangar
	Ports       []string // EXPOSE, as "8080/tcp"
	Title       string   // org.opencontainers.image.title
	Description string   // org.opencontainers.image.description
	// Site is true for the web front end: web/dist/site at /hangar/site and the shell's
	// route table at /hangar/routes.ts.
	Site bool
}

// Specs are every deployable of the chart: the seven services (each also runs its `migrate`
// Job), hangar-events (the topics Job) and the web front end's server.
func Specs() []Spec {
	svc := func(name, desc string) Spec {
		return Spec{Name: name, Package: "./services/" + name + "/cmd/" + name, Binary: name,
			Ports: adminPorts,
			Title: "hangar-" + name, Description: desc}
	}
	return []Spec{
		svc("catalog", "Hangar catalog service: plans, add-ons and prices"),
		svc("identity", "Hangar identity service: accounts, sessions, organizations, eligibility"),
		svc("checkout", "Hangar checkout service: plans, add-ons and prices"),
		svc("payments", "Hangar payments service: hosted card fields, tokenisation, vault, charges, card reader"),
		svc("allocation", "Hangar allocation service: licence pools, assignments to users and aircraft, allocation reports"),
		svc("geo", "Hangar geo service: IP to country, EU and default currency"),
		svc("notifications", "Hangar notifications service: e-mails for the store's events over SMTP"),
		{Name: "hangar-events", Package: "./cmd/hangar-events", Binary: "hangar-events",
			Title:       "hangar-events",
			Description: "Hangar events tool: creates the declared topics, lists and replays dead letters"},
		{Name: "web", Package: "./cmd/hangar-web", Binary: "hangar-web",
			Ports: []string{"8080/tcp"}, Title: "hangar-web",
			Description: "Hangar web front end: the shell and micro-frontends, served with their page routes", Site: true},
	}
}

// Inputs are the host files an image is assembled from.
type Inputs struct {
	Binary   string // the static binary built from Spec.Package
	Site     string // web/dist/site (Spec.Site)
	Routes   string // web/apps/shell/src/routes.ts (Spec.Site)
	CACerts  string // a CA bundle, e.g. /etc/ssl/certs/ca-certificates.crt
	ZoneInfo string // a zoneinfo tree, e.g. /usr/share/zoneinfo
}

// Build assembles spec's image from in. Equal inputs give the same digest: every entry's
// time is the epoch and its owner root (or nonroot where distroless has it so).
func Build(spec Spec, in Inputs) (v1.Image, error) {
	base, err := baseLayer(in.CACerts, in.ZoneInfo)
	if err != nil {
		return nil, err
	}
	app := newTree()
	app.dir("hangar", 0o755, 0)
	if err := app.file("hangar/"+spec.Binary, in.Binary, 0o755); err != nil {
		return nil, err
	}
	if spec.Site {
		if err := app.file("hangar/routes.ts", in.Routes, 0o644); err != nil {
			return nil, err
		}
		if err := app.tree("hangar/site", in.Site); err != nil {
			return nil, err
		}
	}
	appLayer, err := app.layer()
	if err != nil {
		return nil, err
	}
	ports := map[string]struct{}{}
	for _, p := range spec.Ports {
		ports[p] = struct{}{}
	}
	img, err := mutate.ConfigFile(mutate.MediaType(empty.Image, types.OCIManifestSchema1), &v1.ConfigFile{
		Architecture: "amd64",
		OS:           "linux",
		Created:      v1.Time{Time: time.Unix(0, 0).UTC()},
		Config: v1.Config{
			Entrypoint:   []string{"/hangar/" + spec.Binary},
			User:         fmt.Sprintf("%d:%d", NonRoot, NonRoot),
			ExposedPorts: ports,
			WorkingDir:   "/",
			Env: []string{
				"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
				"SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt",
			},
			Labels: map[string]string{
				"org.opencontainers.image.title":       spec.Title,
				"org.opencontainers.image.description": spec.Description,
			},
		},
		RootFS: v1.RootFS{Type: "layers"},
	})
	if err != nil {
		return nil, err
	}
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	return mutate.Append(img,
		mutate.Addendum{Layer: base, History: v1.History{CreatedBy: "hangar images: distroless/static nonroot files", Created: v1.Time{Time: time.Unix(0, 0).UTC()}}},
		mutate.Addendum{Layer: appLayer, History: v1.History{CreatedBy: "hangar images: COPY /hangar/" + spec.Binary, Created: v1.Time{Time: time.Unix(0, 0).UTC()}}},
	)
}

// baseLayer holds what distroless/static-debian12:nonroot gives a static Go binary.
func baseLayer(caCerts, zoneInfo string) (v1.Layer, error) {
	t := newTree()
	for _, d := range []string{"etc", "etc/ssl", "etc/ssl/certs", "usr", "usr/share", "home", "root"} {
		t.dir(d, 0o755, 0)
	}
	t.dir("root", 0o700, 0)
	t.dir("tmp", 0o1777, 0)
	t.dir("home/nonroot", 0o700, NonRoot)
	t.bytes("etc/passwd", 0o644, "root:x:0:0:root:/root:/sbin/nologin\n"+
		"nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n"+
		"nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n")
	t.bytes("etc/group", 0o644, "root:x:0:\nnobody:x:65534:\ntty:x:5:\nstaff:x:50:\nnonroot:x:65532:\n")
	t.bytes("etc/nsswitch.conf", 0o644, "hosts: files dns\n")
	if err := t.file("etc/ssl/certs/ca-certificates.crt", caCerts, 0o644); err != nil {
		return nil, err
	}
	if err := t.tree("usr/share/zoneinfo", zoneInfo); err != nil {
		return nil, err
	}
	return t.layer()
}

// tree collects a layer's entries, written in path order.
type tree struct {
	entries map[string]entry
}

type entry struct {
	hdr  tar.Header
	data []byte
}

func newTree() *tree { return &tree{entries: map[string]entry{}} }

func (t *tree) dir(name string, mode int64, owner int) {
	t.entries[name] = entry{hdr: tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: mode, Uid: owner, Gid: owner}}
}

func (t *tree) bytes(name string, mode int64, data string) {
	t.entries[name] = entry{hdr: tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(data))}, data: []byte(data)}
}

func (t *tree) file(name, src string, mode int64) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("image file /%s: %w", name, err)
	}
	t.entries[name] = entry{hdr: tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(b))}, data: b}
	return nil
}

// tree copies the directory src to name: directories 0755, files 0644, symbolic links as
// links (zoneinfo has them). Everything is readable by nonroot and writable by no one.
func (t *tree) tree(name, src string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		dst := path.Join(name, filepath.ToSlash(rel))
		switch {
		case d.IsDir():
			t.dir(dst, 0o755, 0)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			t.entries[dst] = entry{hdr: tar.Header{Typeflag: tar.TypeSymlink, Name: dst, Linkname: target, Mode: 0o777}}
		case d.Type().IsRegular():
			return t.file(dst, p, 0o644)
		}
		return nil
	})
}

func (t *tree) layer() (v1.Layer, error) {
	names := make([]string, 0, len(t.entries))
	for n := range t.entries {
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, n := range names {
		e := t.entries[n]
		e.hdr.Format = tar.FormatPAX
		e.hdr.ModTime = time.Unix(0, 0)
		if err := tw.WriteHeader(&e.hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	raw := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(raw)), nil
	}, tarball.WithMediaType(types.OCILayer))
}

// Files lists an image's paths (without the leading slash) with their tar headers, the
// upper layers over the lower ones, as a container sees its root.
func Files(img v1.Image) (map[string]*tar.Header, error) {
	layers, err := img.Layers()
	if err != nil {
		return nil, err
	}
	out := map[string]*tar.Header{}
	for _, l := range layers {
		rc, err := l.Uncompressed()
		if err != nil {
			return nil, err
		}
		tr := tar.NewReader(rc)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				rc.Close()
				return nil, err
			}
			out[strings.TrimSuffix(h.Name, "/")] = h
		}
		rc.Close()
	}
	return out, nil
}

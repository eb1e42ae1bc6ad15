package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// Global is one init function or one package-level variable that holds mutable state.
type Global struct {
	Pos  string // file:line
	What string
}

func (g Global) String() string { return g.Pos + ": " + g.What }

// allowGlobal marks a package-level variable that must stay process-wide because what it
// serves is (a library's one hook per process); the text after it says why.
const allowGlobal = "//layercheck:global "

// mutablePackages are the packages whose types are state by nature.
var mutablePackages = map[string]bool{"sync": true, "atomic": true}

// CheckGlobals walks the Go files under root (generated code under gen/, web/ and
// testdata excluded) and answers every init function and every package-level variable that
// is state: of a sync or sync/atomic type, of a function type (a seam a test swaps),
// declared without a value (filled in later), or assigned anywhere in its package.
// Tables initialised once and never written again (maps, slices, regexps, sentinel
// errors) stay allowed.
func CheckGlobals(root string) ([]Global, error) {
	dirs := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "gen" || name == "web" || name == "node_modules" || name == "testdata" || name == "third_party" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") {
			dirs[filepath.Dir(path)] = append(dirs[filepath.Dir(path)], path)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []Global
	fset := token.NewFileSet()
	for _, files := range dirs {
		// Package name → its files (a directory holds a package and its _test package).
		pkgs := map[string][]*ast.File{}
		for _, f := range files {
			file, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
			if err != nil {
				return nil, err
			}
			pkgs[file.Name.Name] = append(pkgs[file.Name.Name], file)
		}
		for _, pkg := range pkgs {
			out = append(out, globalsOf(fset, root, pkg)...)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pos < out[j].Pos })
	return out, nil
}

func globalsOf(fset *token.FileSet, root string, files []*ast.File) []Global {
	var out []Global
	pos := func(p token.Pos) string {
		at := fset.Position(p)
		if rel, err := filepath.Rel(root, at.Filename); err == nil {
			at.Filename = rel
		}
		return fmt.Sprintf("%s:%d", filepath.ToSlash(at.Filename), at.Line)
	}
	vars := map[string]*ast.Ident{}
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.Name == "init" {
					out = append(out, Global{pos(d.Pos()), "init function: build the state in the value that owns it, or in main"})
				}
			case *ast.GenDecl:
				if d.Tok != token.VAR || allowed(d.Doc) {
					continue
				}
				for _, s := range d.Specs {
					vs := s.(*ast.ValueSpec)
					if allowed(vs.Doc) {
						continue
					}
					for i, n := range vs.Names {
						if n.Name == "_" {
							continue
						}
						var val ast.Expr
						if i < len(vs.Values) {
							val = vs.Values[i]
						}
						if why := stateful(vs.Type, val, d.Doc, vs.Doc); why != "" {
							out = append(out, Global{pos(n.Pos()), "var " + n.Name + ": " + why})
							continue
						}
						vars[n.Name] = n
					}
				}
			}
		}
	}
	// A variable written after its declaration is state, whatever its type.
	written := map[string]bool{}
	for _, f := range files {
		ast.Inspect(f, func(node ast.Node) bool {
			var targets []ast.Expr
			switch s := node.(type) {
			case *ast.AssignStmt:
				targets = s.Lhs
			case *ast.IncDecStmt:
				targets = []ast.Expr{s.X}
			case *ast.UnaryExpr:
				if s.Op == token.AND {
					targets = []ast.Expr{s.X}
				}
			}
			for _, t := range targets {
				if id := rootIdent(t); id != nil && vars[id.Name] != nil && !written[id.Name] && packageLevel(id, vars[id.Name]) {
					written[id.Name] = true
					out = append(out, Global{pos(vars[id.Name].Pos()), "var " + id.Name + ": written at " + pos(t.Pos()) + "; keep it in the value that owns it"})
				}
			}
			return true
		})
	}
	return out
}

// rootIdent answers the variable an assignment target writes into (x, x.f, x[i], *x).
func rootIdent(e ast.Expr) *ast.Ident {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		default:
			return nil
		}
	}
}

// packageLevel reports whether id names the package-level variable decl rather than a
// local of the same name: the parser resolves a name to its declaration within a file,
// and leaves names declared in another file of the package unresolved.
func packageLevel(id, decl *ast.Ident) bool {
	if id.Obj == nil {
		return true
	}
	return id.Obj == decl.Obj
}

// stateful answers why a package-level variable of this type and value is state ("" when
// it is not, by its declaration alone).
func stateful(typ, val ast.Expr, docs ...*ast.CommentGroup) string {
	if _, ok := typ.(*ast.FuncType); ok {
		return "a function variable (a seam): pass the function to the value that calls it"
	}
	if _, ok := val.(*ast.FuncLit); ok {
		return "a function variable (a seam): pass the function to the value that calls it"
	}
	for _, e := range []ast.Expr{typ, val} {
		if p := packageOf(e); mutablePackages[p] {
			return p + "." + "* is state: keep it in the value that owns it"
		}
	}
	if val == nil && !embedded(docs...) {
		return "declared without a value, so filled in later: keep it in the value that owns it"
	}
	return ""
}

// packageOf answers the package qualifier of a type or composite literal's type (sync in
// sync.Map, atomic in atomic.Pointer[T]{}, &sync.Mutex{}).
func packageOf(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.CompositeLit:
			e = x.Type
		case *ast.UnaryExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok {
				return id.Name
			}
			return ""
		default:
			return ""
		}
	}
}

func embedded(docs ...*ast.CommentGroup) bool {
	for _, d := range docs {
		if d != nil && hasDirective(d, "//go:embed ") {
			return true
		}
	}
	return false
}

func allowed(doc *ast.CommentGroup) bool { return doc != nil && hasDirective(doc, allowGlobal) }

func hasDirective(doc *ast.CommentGroup, prefix string) bool {
	for _, c := range doc.List {
		if strings.HasPrefix(c.Text, prefix) {
			return true
		}
	}
	return false
}

// checkGlobals runs CheckGlobals over the working directory and prints what it found.
func checkGlobals() int {
	gs, err := CheckGlobals(".")
	return report(gs, err, fmt.Sprintf("globals (no init(), no package-level mutable state outside gen/; a process-wide library hook says why with %q)", strings.TrimSpace(allowGlobal)))
}

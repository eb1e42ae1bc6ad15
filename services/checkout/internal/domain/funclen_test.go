package domain_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the longest a function of the domain packages may be, from its
// signature to its closing brace: longer ones hide several rules in one place and are
// split into named steps.
const maxFuncLines = 80

// domainRoots are checkout's domain packages: this directory with every package under it
// (rules, pricing, tax, promotion, gift, oneoff), the order pipeline and the subscription
// events.
var domainRoots = []string{".", "../order", "../subscription"}

// TestFunctionLength fails on any function or method in checkout's domain packages (tests
// excluded: table tests are long on purpose) longer than maxFuncLines.
func TestFunctionLength(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	checked := 0
	for _, root := range domainRoots {
		if err := walkFuncs(fset, root, t, &checked); err != nil {
			t.Fatal(err)
		}
	}
	if checked < 20 {
		t.Fatalf("checked %d files: the walk did not find the domain packages", checked)
	}
}

func walkFuncs(fset *token.FileSet, root string, t *testing.T, checked *int) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		*checked++
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			if lines > maxFuncLines {
				t.Errorf("%s: %s is %d lines (at most %d)", fset.Position(fn.Pos()), name(fn), lines, maxFuncLines)
			}
		}
		return nil
	})
}

func name(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	recv := fn.Recv.List[0].Type
	if s, ok := recv.(*ast.StarExpr); ok {
		recv = s.X
	}
	if id, ok := recv.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}

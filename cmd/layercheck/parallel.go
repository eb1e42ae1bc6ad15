package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// allowSerial marks a top-level test that must run alone; the text after it says why (it
// sets the process environment, it stops the machine's shared broker, ...).
const allowSerial = "//layercheck:serial "

// CheckParallel walks the Go test files under root (the directories CheckGlobals skips,
// skipped) and answers every top-level test function (TestXxx(t *testing.T), TestMain
// aside) whose body does not call t.Parallel() as one of its own statements and whose
// comment does not say, with //layercheck:serial, why it must run alone. Tests run in
// parallel by default so the suite's time is its slowest tests', not their sum, and a test
// that shares what it should not is found at once.
func CheckParallel(root string) ([]Global, error) {
	var out []Global
	fset := token.NewFileSet()
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
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || !isTest(fd) || callsParallel(fd) || serialWhy(fd.Doc) != "" {
				continue
			}
			at := fset.Position(fd.Pos())
			if rel, err := filepath.Rel(root, at.Filename); err == nil {
				at.Filename = rel
			}
			out = append(out, Global{fmt.Sprintf("%s:%d", filepath.ToSlash(at.Filename), at.Line),
				"test " + fd.Name.Name + " is not parallel: call t.Parallel() first, or say why it must run alone with " + strings.TrimSpace(allowSerial) + " <why>"})
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Pos < out[j].Pos })
	return out, err
}

// isTest reports a top-level test function: TestXxx with one *testing.T parameter.
func isTest(fd *ast.FuncDecl) bool {
	if fd.Recv != nil || fd.Body == nil || !strings.HasPrefix(fd.Name.Name, "Test") || fd.Name.Name == "TestMain" {
		return false
	}
	if fd.Type.Params == nil || len(fd.Type.Params.List) != 1 {
		return false
	}
	star, ok := fd.Type.Params.List[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "T"
}

// callsParallel reports a body with a statement x.Parallel() of its own (not one inside a
// subtest: the top-level test itself must be parallel).
func callsParallel(fd *ast.FuncDecl) bool {
	for _, s := range fd.Body.List {
		es, ok := s.(*ast.ExprStmt)
		if !ok {
			continue
		}
		call, ok := es.X.(*ast.CallExpr)
		if !ok {
			continue
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Parallel" && len(call.Args) == 0 {
			return true
		}
	}
	return false
}

// serialWhy answers the reason a //layercheck:serial directive gives ("" without one).
func serialWhy(doc *ast.CommentGroup) string {
	if doc == nil {
		return ""
	}
	for _, c := range doc.List {
		if strings.HasPrefix(c.Text, allowSerial) {
			return strings.TrimSpace(strings.TrimPrefix(c.Text, allowSerial))
		}
	}
	return ""
}

// checkParallel runs CheckParallel over the working directory and prints what it found.
func checkParallel() int {
	ts, err := CheckParallel(".")
	return report(ts, err, fmt.Sprintf("tests not parallel (t.Parallel(), or %q why it must run alone)", strings.TrimSpace(allowSerial)))
}

// report prints each finding of a check and, when there are any, their count with what
// the rule asks (what); a check that could not run fails the command.
func report[T any](found []T, err error, what string) int {
	if err != nil {
		fail(err)
	}
	for _, f := range found {
		fmt.Println(f)
	}
	if len(found) > 0 {
		fmt.Fprintf(os.Stderr, "layercheck: %d %s\n", len(found), what)
	}
	return len(found)
}

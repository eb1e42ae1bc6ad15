package db

import (
	"fmt"
	"regexp"
	"strings"
)

// A rolling deploy runs the old release's pods beside the new schema: migrations run once,
// before the new pods start (the chart's migrate Job), while the old pods still serve. So
// a migration may only expand the schema (docs/architecture.md, "Schema changes roll"):
// add tables, nullable or defaulted columns, and indexes built without blocking writes.
// What the old code may still use is removed, renamed or tightened only in a contract
// step: a later migration marked
//
//	-- hangar:contract <release>: <what the code stopped using there>
//
// naming the release from which no running code reads or writes what it changes.

// ContractMarker starts the header line of a contract-step migration.
const ContractMarker = "-- hangar:contract"

// LintFinding is one statement of a migration that would break the release still running.
type LintFinding struct {
	File      string
	Statement string // the offending statement, whitespace collapsed
	Rule      string
}

func (f LintFinding) String() string {
	return fmt.Sprintf("%s: %s\n\t%s", f.File, f.Rule, f.Statement)
}

var (
	reCreateTable = regexp.MustCompile(`^create\s+(?:unlogged\s+)?table\s+(?:if\s+not\s+exists\s+)?([a-z0-9_."]+)`)
	reAlterTable  = regexp.MustCompile(`^alter\s+table\s+(?:if\s+exists\s+)?(?:only\s+)?([a-z0-9_."]+)`)
	reCreateIndex = regexp.MustCompile(`^create\s+(?:unique\s+)?index\s+(concurrently\s+)?(?:if\s+not\s+exists\s+)?(?:[a-z0-9_."]+\s+)?on\s+(?:only\s+)?([a-z0-9_."]+)`)
	reDrop        = regexp.MustCompile(`^drop\s`)
	reAlterDrop   = regexp.MustCompile(`\bdrop\s+([a-z0-9_"]+)`)
	reRename      = regexp.MustCompile(`\brename\b`)
	reSetNotNull  = regexp.MustCompile(`\bset\s+not\s+null\b`)
	reAlterType   = regexp.MustCompile(`\balter\s+(?:column\s+)?[a-z0-9_"]+\s+(?:set\s+data\s+)?type\b`)
	reAddNotNull  = regexp.MustCompile(`\badd\s+(?:column\s+)?(?:if\s+not\s+exists\s+)?[a-z0-9_"]+\s+[^,]*\bnot\s+null\b[^,]*`)
	reHasDefault  = regexp.MustCompile(`\bdefault\b|\bgenerated\b`)
	reConcurrent  = regexp.MustCompile(`(?i)\bconcurrently\b`)
)

// LintMigration checks one migration file (name for the findings, sql its text) against the
// expand/contract rule. Statements on a table the same file creates are free: no running
// code knows that table yet.
func LintMigration(name string, sql string) []LintFinding {
	contract, contractOK := contractHeader(sql)
	var out []LintFinding
	add := func(stmt, rule string) { out = append(out, LintFinding{File: name, Statement: stmt, Rule: rule}) }
	if contract && !contractOK {
		add(ContractMarker, "the contract marker must name the release after which no code uses what it removes: \"-- hangar:contract <release>: <what>\"")
	}
	stmts := splitStatements(sql)
	created := map[string]bool{}
	for _, s := range stmts {
		if m := reCreateTable.FindStringSubmatch(s); m != nil {
			created[unquote(m[1])] = true
		}
	}
	for _, s := range stmts {
		if len(stmts) != 1 && reConcurrent.MatchString(s) {
			// The runner sends such a file as it is: several statements are one implicit
			// transaction, which PostgreSQL refuses for CREATE/DROP INDEX CONCURRENTLY.
			add(s, "CREATE/DROP INDEX CONCURRENTLY cannot run in a transaction: put it alone in its migration file (the runner then applies it outside one)")
		}
		switch {
		case reCreateIndex.MatchString(s):
			m := reCreateIndex.FindStringSubmatch(s)
			if m[1] != "" {
				continue
			}
			if !created[unquote(m[2])] {
				add(s, "CREATE INDEX on an existing table blocks its writes while it builds: use CREATE INDEX CONCURRENTLY IF NOT EXISTS, alone in its file")
			}
		case reDrop.MatchString(s):
			if !contract {
				add(s, "DROP removes what the release still running may use: only in a contract step ("+ContractMarker+" <release>: <what>)")
			}
		case reAlterTable.MatchString(s):
			table := unquote(reAlterTable.FindStringSubmatch(s)[1])
			if created[table] {
				continue
			}
			if !contract {
				if dropsSomething(s) {
					add(s, "DROP COLUMN/CONSTRAINT removes what the release still running may use: only in a contract step ("+ContractMarker+" <release>: <what>)")
				}
				if reRename.MatchString(s) {
					add(s, "RENAME breaks the release still running: add the new name, copy, switch the code, then drop the old one in a contract step")
				}
				if reSetNotNull.MatchString(s) {
					add(s, "SET NOT NULL fails the release still running if it writes NULL (and scans the table under lock): only in a contract step, after a NOT VALID check constraint is validated")
				}
				if reAlterType.MatchString(s) {
					add(s, "ALTER COLUMN TYPE rewrites the table under lock and changes what the running release reads: add a new column instead")
				}
			}
			for _, a := range reAddNotNull.FindAllString(s, -1) {
				if !reHasDefault.MatchString(a) {
					add(s, "ADD COLUMN NOT NULL without a DEFAULT fails every insert of the release still running: give it a DEFAULT")
				}
			}
		case !contract && reRename.MatchString(s) && strings.HasPrefix(s, "alter "):
			add(s, "RENAME breaks the release still running: only in a contract step")
		}
	}
	return out
}

// dropsSomething reports whether an ALTER TABLE drops a column or constraint; DROP
// DEFAULT, DROP NOT NULL, DROP IDENTITY and DROP EXPRESSION only loosen.
func dropsSomething(alter string) bool {
	for _, m := range reAlterDrop.FindAllStringSubmatch(alter, -1) {
		switch m[1] {
		case "default", "not", "identity", "expression":
		default:
			return true
		}
	}
	return false
}

// contractHeader reports whether sql carries the contract marker, and whether it names a
// release (some text after the marker).
func contractHeader(sql string) (marked, named bool) {
	for _, line := range strings.Split(sql, "\n") {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, ContractMarker); ok {
			rest = strings.TrimLeft(rest, " :")
			return true, strings.TrimSpace(rest) != ""
		}
	}
	return false, false
}

// isConcurrent reports whether a migration builds an index concurrently, which PostgreSQL
// refuses inside a transaction: the runner applies such a file (one statement, the lint
// makes sure) outside one.
func isConcurrent(sql string) bool {
	for _, s := range splitStatements(sql) {
		if reConcurrent.MatchString(s) {
			return true
		}
	}
	return false
}

// splitStatements strips comments and splits sql at the semicolons outside quotes and
// dollar-quoted bodies; each statement comes back lower-cased with whitespace collapsed.
func splitStatements(sql string) []string {
	var stmts []string
	var b strings.Builder
	flush := func() {
		s := strings.Join(strings.Fields(strings.ToLower(b.String())), " ")
		if s != "" {
			stmts = append(stmts, s)
		}
		b.Reset()
	}
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			for i < len(sql) && sql[i] != '\n' {
				i++
			}
			b.WriteByte(' ')
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			end := strings.Index(sql[i+2:], "*/")
			if end < 0 {
				i = len(sql)
			} else {
				i += end + 3
			}
			b.WriteByte(' ')
		case c == '\'':
			// A literal stays as '' so nothing inside it reads as SQL.
			for i++; i < len(sql); i++ {
				if sql[i] == '\'' {
					if i+1 < len(sql) && sql[i+1] == '\'' {
						i++
						continue
					}
					break
				}
			}
			b.WriteString("''")
		case c == '$':
			tag := dollarTag(sql[i:])
			if tag == "" {
				b.WriteByte(c)
				continue
			}
			end := strings.Index(sql[i+len(tag):], tag)
			if end < 0 {
				i = len(sql)
			} else {
				i += len(tag) + end + len(tag) - 1
			}
			b.WriteString("$$")
		case c == ';':
			flush()
		default:
			b.WriteByte(c)
		}
	}
	flush()
	return stmts
}

// dollarTag is the opening tag ($$ or $name$) at the start of s, or "".
func dollarTag(s string) string {
	for j := 1; j < len(s); j++ {
		c := s[j]
		if c == '$' {
			return s[:j+1]
		}
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' && j > 1) {
			return ""
		}
	}
	return ""
}

func unquote(name string) string {
	name = strings.ReplaceAll(name, `"`, "")
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	return name
}

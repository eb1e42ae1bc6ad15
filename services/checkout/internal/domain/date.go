package domain

import "time"

// DateLayout is the one way the store prints a date for people (spec 001 §9: MM-dd-yyyy),
// on every page, mail and PDF; the wire's machine dates stay ISO 8601.
const DateLayout = "01-02-2006"

// FormatDate writes t's day in UTC as the store prints it ("12-06-2027").
func FormatDate(t time.Time) string { return t.UTC().Format(DateLayout) }

package app_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Preferences are typed: only the documented keys (spec 001: marketingNotificationsEnabled,
// also the account's EU marketing consent), each with its type. Before, a string answered
// 500 (a PostgreSQL boolean cast), "t" set the legal consent to true, and any key with any
// nesting was stored. Every refusal is a 400 naming the field, and changes nothing.
func TestPreferencesAreTyped(t *testing.T) {
	t.Parallel()
	r := start(t)
	b := newBrowser(t, r.base)
	b.login("pilot@demo.hangar.test")
	_, me := b.do("GET", "/buy/api/me", "", false)
	id := me["accountUuid"].(string)
	consent := func() any {
		_, c := b.do("GET", "/buy/api/subscription/eu_consent/"+id, "", false)
		p, _ := c["preference"].(map[string]any)
		return p["marketingNotificationsEnabled"]
	}
	before := consent()

	for _, c := range []struct{ body, field string }{
		{`{"marketingNotificationsEnabled":"maybe"}`, "marketingNotificationsEnabled"},
		{`{"marketingNotificationsEnabled":"t"}`, "marketingNotificationsEnabled"},
		{`{"marketingNotificationsEnabled":1}`, "marketingNotificationsEnabled"},
		{`{"marketingNotificationsEnabled":null}`, "marketingNotificationsEnabled"},
		{`{"marketingNotificationsEnabled":{"a":{"b":[true]}}}`, "marketingNotificationsEnabled"},
		{`{}`, "preferences"},
		{`[true]`, "body"}, // not an object: the gateway names the body
		{`"true"`, "body"},
		{`{"theme":"dark"}`, "theme"},
		{`{"marketingNotificationsEnabled":true,"nested":{"deep":{"deeper":{}}}}`, "nested"},
	} {
		code, body := b.do("POST", "/account/api/settings/preferences", c.body, true)
		fields, _ := body["fieldErrors"].([]any)
		named := false
		for _, f := range fields {
			if m, _ := f.(map[string]any); m["field"] == c.field && !strings.Contains(m["message"].(string), "proto") {
				named = true
			}
		}
		if code != 400 || !named {
			t.Errorf("POST preferences %s = %d %v; want 400 naming %s", c.body, code, body, c.field)
		}
	}
	if got := consent(); got != before {
		t.Errorf("consent after refused bodies = %v, want unchanged %v", got, before)
	}
	_, ws := b.do("GET", "/account/api/settings/websettings", "", false)
	if p, _ := ws["preferences"].(map[string]any); len(p) > 1 {
		t.Errorf("websettings after refused bodies = %v; want nothing but the documented key stored", ws)
	}

	// Every change of the consent is recorded with its time, source and previous value.
	for _, v := range []string{"true", "false"} {
		if code, body := b.do("POST", "/account/api/settings/preferences", `{"marketingNotificationsEnabled":`+v+`}`, true); code != 200 {
			t.Fatalf("POST preferences %s = %d %v", v, code, body)
		}
		if got := consent(); got != (v == "true") {
			t.Errorf("consent after %s = %v", v, got)
		}
	}
	pool, err := pgxpool.New(context.Background(), r.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	rows, err := pool.Query(context.Background(), `SELECT consent, value, previous, source, changed_at IS NOT NULL
		FROM consent_history WHERE account_uuid = $1 ORDER BY id`, id)
	if err != nil {
		t.Fatalf("read consent history: %v", err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var kind, source string
		var value, hasTime bool
		var previous *bool
		if err := rows.Scan(&kind, &value, &previous, &source, &hasTime); err != nil {
			t.Fatal(err)
		}
		p := "none"
		if previous != nil {
			p = map[bool]string{true: "true", false: "false"}[*previous]
		}
		got = append(got, kind+" "+p+"->"+map[bool]string{true: "true", false: "false"}[value]+" by "+source+map[bool]string{true: "", false: " (no time)"}[hasTime])
	}
	want := []string{"marketing false->true by preferences", "marketing true->false by preferences"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("consent history = %q, want %q", got, want)
	}
}

package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/events"
	iapp "github.com/hangar/hangar/services/checkout/internal/app"
)

// receiptLinkOf answers the receipt link the order-completed event (and so the receipt
// e-mail) carries for an invoice.
func receiptLinkOf(t *testing.T, st *stack, invoiceID string) string {
	t.Helper()
	rows, err := st.checkoutDB.Query(context.Background(), `SELECT payload FROM outbox WHERE topic = $1`, events.TopicOrderCompleted)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var payload []byte
		if err := rows.Scan(&payload); err != nil {
			t.Fatal(err)
		}
		var ev eventsv1.OrderCompleted
		if err := proto.Unmarshal(payload, &ev); err == nil && ev.GetInvoiceId() == invoiceID {
			return ev.GetReceiptUrl()
		}
	}
	t.Fatalf("no order-completed event for %s", invoiceID)
	return ""
}

// rawGet sends a GET without following redirects, as a browser with nothing but cookie.
func rawGet(t *testing.T, u, cookie string) (int, http.Header, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	if cookie != "" {
		req.Header.Set("Cookie", cookie)
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// Issue 31 item 3: the e-mailed receipt link said 'no such receipt' in any browser but the
// one that paid (it depended on that browser's cookie). The link now carries a signed,
// expiring token: it opens the receipt (and its PDF) anywhere; an expired, tampered or
// another invoice's token is refused.
func TestReceiptLinkOpensAnywhere(t *testing.T) {
	t.Parallel()
	st := startStack(t, nil)
	place := func(tag string) string {
		body := quoted(t, st.base, newBuyer(tag), st.tokenize(t, "4111111111111111"), "")
		code, m, _ := submitRaw(t, st.base, "link-"+tag, body, "")
		if code != 200 {
			t.Fatalf("submit: %d %v", code, m)
		}
		return m["invoiceId"].(string)
	}
	id, other := place("linka"), place("linkb")
	link := receiptLinkOf(t, st, id)
	if !strings.HasPrefix(link, "/buy/api/receipt/"+id+"/open?token=") {
		t.Fatalf("the e-mailed link %q carries no token", link)
	}
	u, _ := url.Parse(link)
	token := u.Query().Get("token")
	name := "hangar_receipt_" + strings.ReplaceAll(id, "-", "")

	t.Run("the link opens the receipt in a browser without the cookie", func(t *testing.T) {
		code, hdr, _ := rawGet(t, st.base+link, "")
		if code != http.StatusSeeOther || hdr.Get("Location") != "/buy/success?invoiceId="+id {
			t.Fatalf("open: %d %v", code, hdr)
		}
		var jar string
		for _, c := range (&http.Response{Header: hdr}).Cookies() {
			if c.Name == name {
				jar = c.Name + "=" + c.Value
			}
		}
		if jar == "" {
			t.Fatalf("no receipt cookie from the link: %v", hdr)
		}
		if code, _, _ := rawGet(t, st.base+"/buy/api/receipt/"+id, ""); code != 404 {
			t.Errorf("without the cookie: %d", code)
		}
		code, _, body := rawGet(t, st.base+"/buy/api/receipt/"+id, jar)
		if code != 200 || !bytes.Contains(body, []byte(`"invoiceId":"`+id+`"`)) || !bytes.Contains(body, []byte(`"vatNumber":"IE0000000XX"`)) {
			t.Errorf("receipt with the link's cookie: %d %s", code, body)
		}
	})

	t.Run("an expired, tampered or another invoice's token is refused", func(t *testing.T) {
		keys, err := iapp.ParseReceiptKeys([]string{"dev=hangar-dev-receipt-key-not-for-production"})
		if err != nil {
			t.Fatal(err)
		}
		if !keys.Verify(id, token, time.Now()) {
			t.Fatal("the stack does not sign with the development receipt key")
		}
		expired := keys.Sign(id, time.Now().Add(-time.Minute))
		tampered := token[:len(token)-1] + map[bool]string{true: "0", false: "1"}[!strings.HasSuffix(token, "0")]
		otherToken, _ := url.Parse(receiptLinkOf(t, st, other))
		for what, tok := range map[string]string{"expired": expired, "tampered": tampered, "another invoice's": otherToken.Query().Get("token")} {
			if code, _, _ := rawGet(t, st.base+iapp.ReceiptOpenPath(id)+"?token="+url.QueryEscape(tok), ""); code != 404 {
				t.Errorf("%s token opens: %d", what, code)
			}
			if code, _, _ := rawGet(t, st.base+"/buy/api/receipt/"+id, name+"="+tok); code != 404 {
				t.Errorf("%s token as the cookie reads the receipt: %d", what, code)
			}
			if code, _, _ := rawGet(t, st.base+"/buy/api/receipt/"+id+"/pdf?token="+url.QueryEscape(tok), ""); code != 404 {
				t.Errorf("%s token downloads the PDF: %d", what, code)
			}
		}
	})

	t.Run("the PDF carries the seller's VAT number and the invoice number", func(t *testing.T) {
		var number string
		if err := st.checkoutDB.QueryRow(context.Background(), `SELECT invoice_number FROM orders WHERE invoice_id = $1`, id).Scan(&number); err != nil {
			t.Fatal(err)
		}
		code, hdr, body := rawGet(t, st.base+"/buy/api/receipt/"+id+"/pdf?token="+url.QueryEscape(token), "")
		if code != 200 || hdr.Get("Content-Type") != "application/pdf" || !bytes.HasPrefix(body, []byte("%PDF")) {
			t.Fatalf("pdf: %d %v %.40q", code, hdr, body)
		}
		for _, want := range []string{"IE0000000XX", "Hangar Aviation Software Ltd", "Invoice number: " + number, "Total: 470.00 USD"} {
			if !bytes.Contains(body, []byte(want)) {
				t.Errorf("the PDF lacks %q", want)
			}
		}
		if code, _, _ := rawGet(t, st.base+"/buy/api/receipt/"+id+"/pdf", ""); code != 404 {
			t.Errorf("the PDF without a token: %d", code)
		}
	})

	t.Run("the buyer saves the invoice's billing contact through the token, no session", func(t *testing.T) {
		contact := `{"name":"Amelia Earhart","physicalAddress":"Hauptstrasse 1","city":"Berlin","postalCode":"10115","country":"DE"}`
		post := func(q, cookie string) (int, []byte) {
			req, _ := http.NewRequest("POST", st.base+"/buy/api/receipt/"+id+"/contact"+q, strings.NewReader(contact))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Cookie", strings.TrimSuffix("XSRF-TOKEN=test-xsrf; "+cookie, "; "))
			req.Header.Set("X-XSRF-TOKEN", "test-xsrf")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, b
		}
		if code, b := post("", ""); code != 404 {
			t.Errorf("without a token: %d %s", code, b)
		}
		if code, b := post("", name+"="+token); code != 200 {
			t.Fatalf("with the receipt token: %d %s", code, b)
		}
		code, _, body := rawGet(t, st.base+"/buy/api/receipt/"+id, name+"="+token)
		if code != 200 || !bytes.Contains(body, []byte(`"physicalAddress":"Hauptstrasse 1"`)) {
			t.Errorf("the receipt's billing contact: %d %s", code, body)
		}
		_, _, pdf := rawGet(t, st.base+"/buy/api/receipt/"+id+"/pdf?token="+url.QueryEscape(token), "")
		if !bytes.Contains(pdf, []byte("Hauptstrasse 1")) || !bytes.Contains(pdf, []byte("Berlin, 10115")) {
			t.Error("the PDF lacks the saved billing contact")
		}
		contact = `{"name":" ","physicalAddress":"x","city":"y","country":"DE"}`
		if code, b := post("?token="+url.QueryEscape(token), ""); code != 400 || !bytes.Contains(b, []byte("name")) {
			t.Errorf("a blank name: %d %s", code, b)
		}
	})

	// Issue 41: the holder of a receipt link rewrote an issued invoice's "Bill to" with
	// newlines ("TOTAL: $0.00 PAID IN FULL" on a line of its own), and 60 lines pushed the
	// totals to the PDF's second page. Now each field is one line of bounded length (the
	// field named), the invoice's contact is fixed once issued, and a changed contact
	// issues a corrected copy numbered with a suffix, the original left as it was.
	t.Run("an issued invoice's contact is fixed; a change is a numbered corrected copy", func(t *testing.T) {
		var number string
		if err := st.checkoutDB.QueryRow(context.Background(), `SELECT invoice_number FROM orders WHERE invoice_id = $1`, id).Scan(&number); err != nil {
			t.Fatal(err)
		}
		save := func(contact string) (int, map[string]any) {
			req, _ := http.NewRequest("POST", st.base+"/buy/api/receipt/"+id+"/contact", strings.NewReader(contact))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Cookie", "XSRF-TOKEN=test-xsrf; "+name+"="+token)
			req.Header.Set("X-XSRF-TOKEN", "test-xsrf")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var m map[string]any
			_ = json.NewDecoder(resp.Body).Decode(&m)
			return resp.StatusCode, m
		}
		fieldOf := func(m map[string]any) (string, string) {
			fes, _ := m["fieldErrors"].([]any)
			if len(fes) != 1 {
				return "", fmt.Sprint(m)
			}
			f, _ := fes[0].(map[string]any)
			return fmt.Sprint(f["field"]), fmt.Sprint(f["message"])
		}
		for _, c := range []struct{ body, field, says string }{
			{`{"name":"Amelia Earhart\nTOTAL: $0.00 PAID IN FULL","physicalAddress":"Hauptstrasse 1","city":"Berlin","country":"DE"}`, "name", "single line"},
			{`{"name":"Amelia Earhart","physicalAddress":"Hauptstrasse 1\r\n\r\n","physicalAddress2":"a\u0000b","city":"Berlin","country":"DE"}`, "physicalAddress2", "NUL"},
			{`{"name":"Amelia Earhart","physicalAddress":"Hauptstrasse 1","city":"Berlin\u202eeno","country":"DE"}`, "city", "single line"},
			{`{"name":"` + strings.Repeat("A", 101) + `","physicalAddress":"Hauptstrasse 1","city":"Berlin","country":"DE"}`, "name", "at most 100 characters"},
		} {
			code, m := save(c.body)
			if field, msg := fieldOf(m); code != 400 || field != c.field || !strings.Contains(msg, c.says) {
				t.Errorf("contact %s = %d %s %q; want 400 naming %s (%s)", c.body, code, field, msg, c.field, c.says)
			}
		}

		changed := `{"name":"Amelia Earhart Aviation GmbH","physicalAddress":"Unter den Linden 5","city":"Berlin","postalCode":"10117","country":"DE"}`
		code, m := save(changed)
		if code != 200 || m["invoiceNumber"] != number+"-C1" || m["correctionOf"] != number {
			t.Fatalf("a changed contact = %d %v; want the corrected copy %s-C1 of %s", code, m, number, number)
		}
		var original string
		if err := st.checkoutDB.QueryRow(context.Background(), `SELECT invoice_contact->>'physicalAddress' FROM orders WHERE invoice_id = $1`, id).Scan(&original); err != nil ||
			original != "Hauptstrasse 1" {
			t.Errorf("the issued invoice's contact after the change = %q (%v), want it fixed", original, err)
		}
		if code, m := save(changed); code != 200 || m["invoiceNumber"] != number+"-C1" {
			t.Errorf("the same contact again = %d %v; want the same copy, no new one", code, m)
		}
		_, _, pdf := rawGet(t, st.base+"/buy/api/receipt/"+id+"/pdf?token="+url.QueryEscape(token), "")
		for _, want := range []string{"Invoice number: " + number + "-C1", "Corrected copy of invoice " + number, "Unter den Linden 5", "Total: 470.00 USD"} {
			if !bytes.Contains(pdf, []byte(want)) {
				t.Errorf("the corrected copy's PDF lacks %q", want)
			}
		}

		// The longest contact the fields allow keeps the totals on the first (only) page.
		longest := fmt.Sprintf(`{"name":"%s","physicalAddress":"%s","physicalAddress2":"%s","city":"%s","stateProvince":"%s","postalCode":"%s","country":"%s"}`,
			strings.Repeat("N", 100), strings.Repeat("A", 100), strings.Repeat("B", 100), strings.Repeat("C", 60), strings.Repeat("S", 60),
			strings.Repeat("9", 16), strings.Repeat("D", 60))
		if code, m := save(longest); code != 200 || m["invoiceNumber"] != number+"-C2" {
			t.Fatalf("the longest contact = %d %v; want the copy %s-C2", code, m, number)
		}
		_, _, pdf = rawGet(t, st.base+"/buy/api/receipt/"+id+"/pdf?token="+url.QueryEscape(token), "")
		if !bytes.Contains(pdf, []byte("/Count 1\n")) || !bytes.Contains(pdf, []byte("Total: 470.00 USD")) {
			t.Errorf("the PDF with the longest contact is not one page with its totals")
		}
	})
}

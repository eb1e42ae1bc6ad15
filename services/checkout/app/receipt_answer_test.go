package app_test

import (
	"reflect"
	"strings"
	"testing"
)

// withoutEmpty drops a JSON value's empty members (""/0/false/null/{}/[]), which the two
// answers may leave out or spell out: what is left is what a page can show.
func withoutEmpty(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if e = withoutEmpty(e); e != nil {
				out[k] = e
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []any:
		var out []any
		for _, e := range x {
			out = append(out, withoutEmpty(e))
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case string:
		if x == "" {
			return nil
		}
	case float64:
		if x == 0 {
			return nil
		}
	case bool:
		if !x {
			return nil
		}
	}
	return v
}

// The submit answers the order's receipt, the very one GET /buy/api/receipt/{invoiceId}
// answers afterwards, so the success page shows it without a second request; a retry of
// the submit (its answer lost) answers it too.
func TestSubmitAnswersTheReceiptTheReceiptRouteAnswers(t *testing.T) {
	t.Parallel()
	st := startStack(t, nil)
	nonce := st.tokenize(t, "4111111111111111")
	body := quoted(t, st.base, newBuyer("receipt-answer"), nonce, "")
	code, m, cookies := submitRaw(t, st.base, "receipt-answer-1", body, "")
	if code != 200 || m["invoiceId"] == nil {
		t.Fatalf("submit: %d %v", code, m)
	}
	answered, ok := m["receipt"].(map[string]any)
	if !ok {
		t.Fatalf("submit answered no receipt: %v", m)
	}
	var jar []string
	for _, c := range cookies {
		jar = append(jar, c.Name+"="+c.Value)
	}
	code, got := call(t, "GET", st.base+"/buy/api/receipt/"+m["invoiceId"].(string), "", "Cookie", strings.Join(jar, "; "))
	if code != 200 {
		t.Fatalf("receipt: %d %v", code, got)
	}
	if a, g := withoutEmpty(answered), withoutEmpty(got); !reflect.DeepEqual(a, g) {
		t.Errorf("the submit's receipt differs from the receipt route's:\nsubmit:  %v\nreceipt: %v", a, g)
	}
	if answered["total"] != "470.00" || answered["invoiceNumber"] != m["invoiceNumber"] || len(asList(answered["invoiceItems"])) == 0 {
		t.Errorf("receipt %v", answered)
	}
	code, again, _ := submitRaw(t, st.base, "receipt-answer-1", body, "")
	if code != 200 || again["invoiceId"] != m["invoiceId"] {
		t.Fatalf("retry: %d %v", code, again)
	}
	if r, ok := again["receipt"].(map[string]any); !ok || !reflect.DeepEqual(withoutEmpty(r), withoutEmpty(got)) {
		t.Errorf("the retry's receipt %v, want %v", again["receipt"], got)
	}
}

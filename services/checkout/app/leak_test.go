package app_test

import (
	"strings"
	"testing"
)

// A gift buyer's e-mail that checkout's check lets through and identity refuses (a
// Cyrillic 'а' in the domain) was answered with identity's gRPC status text: 'rpc error:
// code = InvalidArgument desc = …'. The answer is identity's plain message, nothing more.
func TestGiftSubmitShowsNoRPCText(t *testing.T) {
	t.Parallel()
	st := startStack(t, nil)
	nonce := st.tokenize(t, "4111111111111111")
	body := `{"giftCertValues":[370],"email":"buyer@exаmple.com","zipcode":"97201","country":"US","currency":"USD",
		"cardholderName":"Amelia Earhart","nonce":"` + nonce + `","recipient":{"email":"friend@example.com","name":"Bessie Coleman"}}`
	code, m := post(t, st.base+"/buy/api/gift/submit", "gift-lookalike", body, "")
	if code != 400 {
		t.Errorf("look-alike e-mail = %d %v; want 400", code, m)
	}
	for k, v := range m {
		s, _ := v.(string)
		for _, w := range []string{"rpc error", "desc =", "code ="} {
			if strings.Contains(s, w) {
				t.Errorf("%s shows %q: %q", k, w, s)
			}
		}
	}
}

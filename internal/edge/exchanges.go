package edge

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sync"

	"github.com/hangar/hangar/internal/platform/server"
)

// Exchange is one API request and its answer as the browser saw them through the edge: a
// line of the exchange log the contract check (cmd/contract-check) holds to the OpenAPI
// documents. Bodies are bytes (base64 in JSON); headers only those the check reads.
type Exchange struct {
	Method         string `json:"method"`
	URI            string `json:"uri"`
	ContentType    string `json:"contentType,omitempty"`
	Body           []byte `json:"body,omitempty"`
	Status         int    `json:"status"`
	Answer         []byte `json:"answer,omitempty"`
	AnswerType     string `json:"answerType,omitempty"`
	AnswerEncoding string `json:"answerEncoding,omitempty"`
}

// exchangeLog writes one JSON line per exchange.
type exchangeLog struct {
	mu  sync.Mutex
	enc *json.Encoder
}

// WithExchangeLog makes the edge write every request it sends to a service (and every API
// path it answers itself) with its answer to w, one JSON line each (dev only: bodies are
// written whole, so test card data must be the only card data that reaches it).
func (e *Edge) WithExchangeLog(w io.Writer) *Edge {
	e.exchanges = &exchangeLog{enc: json.NewEncoder(w)}
	return e
}

func (e *Edge) logged(w http.ResponseWriter, r *http.Request, serve func(http.ResponseWriter, *http.Request)) {
	body, _ := io.ReadAll(r.Body)
	_ = r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(body))
	x := Exchange{Method: r.Method, URI: r.URL.RequestURI(), ContentType: r.Header.Get("Content-Type"), Body: body}
	rec := server.NewAnswerRecorder(w)
	serve(rec, r)
	x.Status, x.Answer = rec.Status(), rec.Body()
	x.AnswerType, x.AnswerEncoding = w.Header().Get("Content-Type"), w.Header().Get("Content-Encoding")
	e.exchanges.mu.Lock()
	defer e.exchanges.mu.Unlock()
	_ = e.exchanges.enc.Encode(x)
}

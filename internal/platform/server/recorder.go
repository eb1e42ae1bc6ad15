package server

import (
	"bytes"
	"net/http"
)

// AnswerRecorder passes an answer through to the client while keeping a copy of its status
// and body, for the API exchange log of the dev edge and the contract test's checks of every
// answer (one copy of the logic for both).
type AnswerRecorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

// NewAnswerRecorder records what is written through w.
func NewAnswerRecorder(w http.ResponseWriter) *AnswerRecorder {
	return &AnswerRecorder{ResponseWriter: w}
}

// Status is the status the answer was written with (200 when only a body was written, or
// nothing at all: what net/http sends then).
func (a *AnswerRecorder) Status() int {
	if a.status == 0 {
		return http.StatusOK
	}
	return a.status
}

// Body is the answer's body as written (still encoded, e.g. gzip, when the handler encoded it).
func (a *AnswerRecorder) Body() []byte { return a.body.Bytes() }

func (a *AnswerRecorder) WriteHeader(code int) {
	if a.status == 0 {
		a.status = code
	}
	a.ResponseWriter.WriteHeader(code)
}

func (a *AnswerRecorder) Write(b []byte) (int, error) {
	if a.status == 0 {
		a.status = http.StatusOK
	}
	a.body.Write(b)
	return a.ResponseWriter.Write(b)
}

// Flush keeps streaming answers streaming through the recorder.
func (a *AnswerRecorder) Flush() {
	if f, ok := a.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (a *AnswerRecorder) Unwrap() http.ResponseWriter { return a.ResponseWriter }

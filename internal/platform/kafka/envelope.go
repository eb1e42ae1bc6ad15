package kafka

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	kafkago "github.com/segmentio/kafka-go"
	"google.golang.org/protobuf/proto"
)

// CloudEvents attributes in Kafka headers: the CloudEvents Kafka protocol binding, binary
// content mode (the payload is the event data, the attributes are ce_* headers, the data
// content type is the content-type header). The W3C trace context travels beside them as
// traceparent/tracestate, as the CloudEvents distributed-tracing extension names it.
const (
	HeaderID            = "ce_id"
	HeaderSource        = "ce_source"
	HeaderSpecVersion   = "ce_specversion"
	HeaderType          = "ce_type"
	HeaderTime          = "ce_time"
	HeaderSubject       = "ce_subject"
	HeaderDataSchema    = "ce_dataschema"
	HeaderSchemaVersion = "ce_schemaversion" // extension attribute: the payload's schema version
	HeaderContentType   = "content-type"

	// SpecVersion is the CloudEvents version written.
	SpecVersion = "1.0"
	// ContentTypeProtobuf is the content type of the store's event payloads.
	ContentTypeProtobuf = "application/protobuf"
)

// Envelope is one received event: its CloudEvents attributes, its Kafka coordinates and
// its payload. Handlers decode Data (see Decode) and key their effects by ID.
type Envelope struct {
	ID            string
	Source        string
	Type          string
	Subject       string // the Kafka key: the aggregate id
	Time          time.Time
	SchemaVersion string
	DataSchema    string
	ContentType   string
	Data          []byte

	Topic     string
	Partition int
	Offset    int64
	Key       []byte
	Headers   []kafkago.Header // every header as received, including the trace context
}

// Decode unmarshals the protobuf payload into m. An undecodable payload will not decode on
// a retry either: the error is Permanent, so the consumer dead-letters it at once.
func (e Envelope) Decode(m proto.Message) error {
	if err := proto.Unmarshal(e.Data, m); err != nil {
		return Permanent(fmt.Errorf("decode %s payload of event %s: %w", e.Type, e.ID, err))
	}
	return nil
}

// Header answers a header's value ("" when absent).
func (e Envelope) Header(key string) string {
	h := Headers(e.Headers)
	return h.Get(key)
}

// EnvelopeOf reads the CloudEvents attributes of msg. A message published without them
// (before the envelope existed, or by a foreign producer) gets a stable id from its Kafka
// coordinates, so the inbox still recognises its redelivery.
func EnvelopeOf(msg kafkago.Message) Envelope {
	h := Headers(msg.Headers)
	e := Envelope{
		ID: h.Get(HeaderID), Source: h.Get(HeaderSource), Type: h.Get(HeaderType), Subject: h.Get(HeaderSubject),
		SchemaVersion: h.Get(HeaderSchemaVersion), DataSchema: h.Get(HeaderDataSchema), ContentType: h.Get(HeaderContentType),
		Data: msg.Value, Topic: msg.Topic, Partition: msg.Partition, Offset: msg.Offset, Key: msg.Key, Headers: msg.Headers,
	}
	if e.ID == "" {
		e.ID = fmt.Sprintf("kafka:%s/%d/%d", msg.Topic, msg.Partition, msg.Offset)
	}
	if e.Type == "" {
		e.Type, _ = typeOf(msg.Topic)
	}
	if e.Subject == "" {
		e.Subject = string(msg.Key)
	}
	e.Time = msg.Time
	// The strict RFC 3339 of UnmarshalText (what Enqueue writes) parses the bytes without a
	// string's copy, to the time Parse answers; Parse takes what it alone accepts.
	var t time.Time
	if v := h.value(HeaderTime); t.UnmarshalText(v) == nil {
		e.Time = t
	} else if t, err := time.Parse(time.RFC3339Nano, string(v)); err == nil {
		e.Time = t
	}
	return e
}

// ceHeaders appends the CloudEvents attributes of e to dst, filled with defaults: a fresh
// UUIDv7 id, source and type from the topic name (hangar.<service>.<event>.v<N>), the key as
// subject, the schema version from the topic's version suffix, protobuf content.
func ceHeaders(dst headerList, e Event, now time.Time) (headerList, error) {
	id := e.ID
	if id == "" {
		u, err := uuid.NewV7()
		if err != nil {
			return nil, fmt.Errorf("event id: %w", err)
		}
		id = u.String()
	}
	typ, version := typeOf(e.Topic)
	if e.Type != "" {
		typ = e.Type
	}
	if e.SchemaVersion != "" {
		version = e.SchemaVersion
	}
	source := e.Source
	if source == "" {
		source = sourceOf(e.Topic)
	}
	ct := e.ContentType
	if ct == "" {
		ct = ContentTypeProtobuf
	}
	at := e.Time
	if at.IsZero() {
		at = now
	}
	dst = append(dst, header{HeaderSpecVersion, SpecVersion}, header{HeaderID, id}, header{HeaderSource, source},
		header{HeaderType, typ}, header{HeaderTime, at.UTC().Format(time.RFC3339Nano)}, header{HeaderSubject, e.Key},
		header{HeaderContentType, ct})
	if version != "" {
		dst = append(dst, header{HeaderSchemaVersion, version})
	}
	if e.DataSchema != "" {
		dst = append(dst, header{HeaderDataSchema, e.DataSchema})
	}
	return dst, nil
}

// header is one of an outbox row's headers.
type header struct{ key, value string }

// headerList is an outbox row's headers in the order they were set, and the carrier the
// writer's trace context is injected into: a map and encoding/json's reflection and key
// sorting cost a checkout order's commit more than the rest of its events' making.
type headerList []header

func (h *headerList) Get(key string) string {
	for _, x := range *h {
		if x.key == key {
			return x.value
		}
	}
	return ""
}

func (h *headerList) Set(key, value string) {
	for i, x := range *h {
		if x.key == key {
			(*h)[i].value = value
			return
		}
	}
	*h = append(*h, header{key, value})
}

func (h *headerList) Keys() []string {
	keys := make([]string, 0, len(*h))
	for _, x := range *h {
		keys = append(keys, x.key)
	}
	return keys
}

// appendJSON appends h as a JSON object. A name that comes twice (a trace header named like
// an attribute) is written twice, and jsonb keeps the later value, as a map set in h's
// order would. Strings that JSON must escape (none of the attributes the store writes)
// are encoded by encoding/json.
func (h headerList) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, '{')
	for i, x := range h {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendJSONString(dst, x.key); err != nil {
			return nil, err
		}
		dst = append(dst, ':')
		if dst, err = appendJSONString(dst, x.value); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

// jsonSize is the length of h's JSON object when no string needs escaping.
func (h headerList) jsonSize() int {
	n := 2
	for _, x := range h {
		n += len(x.key) + len(x.value) + 6 // quotes, colon, comma
	}
	return n
}

func appendJSONString(dst []byte, s string) ([]byte, error) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, err := json.Marshal(s)
			if err != nil {
				return nil, err
			}
			return append(dst, b...), nil
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"'), nil
}

// typeOf splits a topic named hangar.<service>.<event>.v<N> into the event type (the name
// without the version) and the schema version N.
func typeOf(topic string) (typ, version string) {
	i := strings.LastIndex(topic, ".v")
	if i < 0 {
		return topic, ""
	}
	if _, err := strconv.Atoi(topic[i+2:]); err != nil {
		return topic, ""
	}
	return topic[:i], topic[i+2:]
}

// sourceOf is the producing service's URI reference: /hangar/<service>.
func sourceOf(topic string) string {
	if rest, ok := strings.CutPrefix(topic, "hangar."); ok {
		if service, _, ok := strings.Cut(rest, "."); ok {
			return "/hangar/" + service
		}
	}
	return "/hangar"
}

// permanentError marks a failure that retrying cannot fix.
type permanentError struct{ err error }

func (p permanentError) Error() string { return p.err.Error() }
func (p permanentError) Unwrap() error { return p.err }

// Permanent wraps err so the consumer dead-letters the event without retrying (an
// undecodable payload, an event that violates the contract). nil stays nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return permanentError{err}
}

// IsPermanent reports whether err (or one it wraps) was marked Permanent.
func IsPermanent(err error) bool {
	var p permanentError
	return errors.As(err, &p)
}

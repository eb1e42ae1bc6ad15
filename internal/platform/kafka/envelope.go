package kafka

import (
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
	if t, err := time.Parse(time.RFC3339Nano, h.Get(HeaderTime)); err == nil {
		e.Time = t
	} else {
		e.Time = msg.Time
	}
	return e
}

// ceHeaders are the CloudEvents attributes of e, filled with defaults: a fresh UUIDv7 id,
// source and type from the topic name (hangar.<service>.<event>.v<N>), the key as subject,
// the schema version from the topic's version suffix, protobuf content.
func ceHeaders(e Event, now time.Time) (map[string]string, error) {
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
	h := map[string]string{
		HeaderSpecVersion: SpecVersion, HeaderID: id, HeaderSource: source, HeaderType: typ,
		HeaderTime: at.UTC().Format(time.RFC3339Nano), HeaderSubject: e.Key, HeaderContentType: ct,
	}
	if version != "" {
		h[HeaderSchemaVersion] = version
	}
	if e.DataSchema != "" {
		h[HeaderDataSchema] = e.DataSchema
	}
	return h, nil
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
	parts := strings.Split(topic, ".")
	if len(parts) >= 3 && parts[0] == "hangar" {
		return "/hangar/" + parts[1]
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

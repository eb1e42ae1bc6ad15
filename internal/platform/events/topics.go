// Package events names the store's Kafka topics in one place. Payloads are the messages of
// gen/go/hangar/events/v1; every publisher and consumer uses these names.
package events

import (
	"strconv"
	"time"
)

// Topics, one per event type; the key of each is named in proto/hangar/events/v1.
const (
	TopicOrderCompleted           = "hangar.checkout.order-completed.v1"
	TopicSubscriptionChanged      = "hangar.checkout.subscription-changed.v1"
	TopicGiftCertificateIssued    = "hangar.checkout.gift-certificate-issued.v1"
	TopicDunningNotice            = "hangar.checkout.dunning-notice.v1"
	TopicMarketingConsentGiven    = "hangar.checkout.marketing-consent-given.v1"
	TopicAllocationChanged        = "hangar.allocation.allocation-changed.v1"
	TopicAccountCreated           = "hangar.identity.account-created.v1"
	TopicEligibilityCodeRequested = "hangar.identity.eligibility-code-requested.v1"
	TopicPasswordLinkIssued       = "hangar.identity.password-link-issued.v1"
	TopicPasswordChanged          = "hangar.identity.password-changed.v1"
	TopicPaymentCaptured          = "hangar.payments.payment-captured.v1"
	TopicPaymentRefunded          = "hangar.payments.payment-refunded.v1"
	TopicPaymentMethodUpdated     = "hangar.payments.payment-method-updated.v1"
)

// All is every topic above. A broker that must keep its topics across restarts creates
// them up front (hangar-dev broker); TestAllListsEveryTopic keeps this list complete.
var All = []string{
	TopicOrderCompleted, TopicSubscriptionChanged, TopicGiftCertificateIssued, TopicDunningNotice,
	TopicAllocationChanged, TopicAccountCreated, TopicEligibilityCodeRequested, TopicPaymentCaptured,
	TopicPaymentRefunded, TopicPaymentMethodUpdated, TopicMarketingConsentGiven, TopicPasswordLinkIssued, TopicPasswordChanged,
}

// DLQSuffix names a topic's dead-letter topic, <topic>.dlq, where a consumer puts an event
// it gave up on (kafka.DLQSuffix is the same).
const DLQSuffix = ".dlq"

// TopicSpec is how one topic is created: the chart's topics Job (hangar-events topics)
// creates every declared topic with these settings before a release's pods start, and the
// dev broker creates the same list. Nothing else creates topics: auto-creation is off
// outside development, and no other code names a replication factor.
type TopicSpec struct {
	Name       string
	Partitions int
	// ReplicationFactor 3 with MinInSyncReplicas 2: an acks=all write (every producer's)
	// survives the loss of one broker, and the topic stays writable while one is down.
	ReplicationFactor int
	MinInSyncReplicas int
	// Retention is how long an event is kept (retention.ms): long enough to replay a
	// consumer that was down over a long weekend, or to re-run a dead letter after a fix.
	Retention     time.Duration
	CleanupPolicy string // "delete": events are facts kept for Retention, not compacted state
}

// Configs are the topic-level settings of s, as Kafka names them.
func (s TopicSpec) Configs() map[string]string {
	return map[string]string{
		"min.insync.replicas": strconv.Itoa(s.MinInSyncReplicas),
		"retention.ms":        strconv.FormatInt(s.Retention.Milliseconds(), 10),
		"cleanup.policy":      s.CleanupPolicy,
	}
}

const (
	week = 7 * 24 * time.Hour
	// partitions bounds how many replicas of a consumer group share a topic's work.
	partitions = 6
)

// Declared is every topic of the store and its dead-letter topic, with how each is
// created. TestDeclaredCoversEveryTopicInUse keeps it in step with the code.
var Declared = declare()

func declare() []TopicSpec {
	var out []TopicSpec
	for _, t := range All {
		s := TopicSpec{Name: t, Partitions: partitions, ReplicationFactor: 3, MinInSyncReplicas: 2,
			Retention: week, CleanupPolicy: "delete"}
		// A dead letter waits for a person to fix the cause and replay it: kept longer,
		// and one partition is plenty for what should be a trickle.
		dlq := s
		dlq.Name, dlq.Partitions, dlq.Retention = t+DLQSuffix, 1, 4*week
		out = append(out, s, dlq)
	}
	return out
}

// Spec is the declared settings of topic (a topic or a dead-letter topic).
func Spec(topic string) (TopicSpec, bool) {
	for _, s := range Declared {
		if s.Name == topic {
			return s, true
		}
	}
	return TopicSpec{}, false
}

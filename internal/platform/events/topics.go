// Package events names the store's Kafka topics in one place. Payloads are the messages of
// gen/go/hangar/events/v1; every publisher and consumer uses these names.
package events

// Topics, one per event type; the key of each is named in proto/hangar/events/v1.
const (
	TopicOrderCompleted           = "hangar.checkout.order-completed.v1"
	TopicSubscriptionChanged      = "hangar.checkout.subscription-changed.v1"
	TopicGiftCertificateIssued    = "hangar.checkout.gift-certificate-issued.v1"
	TopicRenewalDue               = "hangar.checkout.renewal-due.v1"
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
	TopicOrderCompleted, TopicSubscriptionChanged, TopicGiftCertificateIssued, TopicRenewalDue, TopicDunningNotice,
	TopicAllocationChanged, TopicAccountCreated, TopicEligibilityCodeRequested, TopicPaymentCaptured,
	TopicPaymentRefunded, TopicPaymentMethodUpdated, TopicMarketingConsentGiven, TopicPasswordLinkIssued, TopicPasswordChanged,
}

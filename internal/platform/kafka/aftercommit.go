package kafka

import "context"

type afterCommitKey struct{}

// AfterCommit registers f to run once the inbox transaction of the InboxHandler or
// InboxBatchHandler whose ctx this is has committed: in the consumer's goroutine, before
// it fetches more, and never when the transaction rolls back or its COMMIT's outcome is
// unknown (a broken connection), so f may act on what the transaction wrote as durable.
// With BatchOptions.EffectsOutsideTx, f runs once the batch's ids are recorded. f must
// not block: the consumer waits for it.
//
// It answers false, and f never runs, when ctx is not such a handler's (a handler called
// by a test in a transaction of its own): a caller that relies on f must then do without
// (notifications queues its mails due at once instead of handing them to its senders).
func AfterCommit(ctx context.Context, f func()) bool {
	fs, ok := ctx.Value(afterCommitKey{}).(*[]func())
	if ok {
		*fs = append(*fs, f)
	}
	return ok
}

// withAfterCommit answers the ctx of one handler call and what runs the functions the
// handler registered, to call once its transaction committed.
func withAfterCommit(ctx context.Context) (context.Context, func()) {
	var fs []func()
	return context.WithValue(ctx, afterCommitKey{}, &fs), func() {
		for _, f := range fs {
			f()
		}
	}
}

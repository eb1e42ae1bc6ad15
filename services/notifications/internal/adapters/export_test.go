package adapters

// HandingSQL is Handing's statement, for the test of its plan.
const HandingSQL = handingSQL

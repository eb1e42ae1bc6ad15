package adapters

// WelcomeSQL is the welcome check and insert, for the test of its plan.
const WelcomeSQL = welcomeSQL

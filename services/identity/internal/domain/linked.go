package domain

// LinkedAccount is an avionics partner's account linked to a store account (spec 001 §3):
// the partner's account id and username, and whether the store account's avionics
// databases are linked to it.
type LinkedAccount struct {
	JeppAccountID  string
	Username       string
	LinkedAvionics bool
}

package ports

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hangar/hangar/internal/platform/errs"
)

var errNotLoaded = errs.E(errs.Unavailable, "the catalogue is not loaded yet")

func unknownCurrency(raw string, v *variants) error {
	var codes []string
	for c := range v.byCur {
		if c != "" {
			codes = append(codes, c)
		}
	}
	sort.Strings(codes)
	msg := fmt.Sprintf("unknown currency %q: want one of %s", raw, strings.Join(codes, ", "))
	return &errs.Error{Code: errs.Invalid, Message: msg, Fields: []errs.FieldError{{Field: "currency", Message: msg}}}
}

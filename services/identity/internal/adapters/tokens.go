package adapters

import (
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// scanToken reads the row of a single-use token looked up by its hash: the columns into
// dest, then the last one, when the token was spent (NULL: not yet), into spent. No row is
// invalid, the answer a spent or expired token gets too, so the answer tells nothing more.
func scanToken(row pgx.Row, invalid error, what string, spent *time.Time, dest ...any) error {
	var at *time.Time
	if err := row.Scan(append(dest, &at)...); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return invalid
		}
		return fmt.Errorf("read %s: %w", what, err)
	}
	if at != nil {
		*spent = *at
	}
	return nil
}

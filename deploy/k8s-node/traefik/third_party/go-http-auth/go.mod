module github.com/abbot/go-http-auth

go 1.14

require golang.org/x/crypto v0.0.0-20210921155107-089bfa567519

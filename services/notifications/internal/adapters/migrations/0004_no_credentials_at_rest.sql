-- Issue 41: a held welcome kept its set-password link in plain text until the account's
-- first order (days, or for ever for a declined buyer). Identity now issues the link only
-- when the first order completes, and such a welcome is mailed at once. The welcomes held
-- before keep no link: their bodies are emptied and their link marked run out, so the
-- release renders them again pointing at "Forgot password" for a new one.
UPDATE held_mails SET text_body = '', html_body = '', link_expires_at = created_at WHERE template = 'welcome';

-- A gift certificate's code (a bearer balance) is kept only until its mail is sent, as a
-- link is: the gift mails sent before keep no body.
UPDATE messages SET text_body = '', html_body = '' WHERE template IN ('gift-buyer', 'gift-recipient') AND sent_at IS NOT NULL;

-- login_attempt counts one login attempt in its failure buckets of rate_limits (GCRA, as
-- ratelimit.PostgreSQL keeps them: tat in Unix microseconds), all of them or none, in one
-- statement: the attempt's one write transaction before its password is verified.
--
-- The account's bucket (acct_key; NULL: none) never refuses: it is counted, capped at two
-- bursts of debt, and whether it fitted says whether the account is under attack, which
-- cuts the pair's burst (pair_key: the account from this address, or the device) to
-- pair_attack_burst. The attempt passes when the pair's and the address's (ip_key; NULL:
-- none) buckets have a token; then all three are counted. Otherwise nothing is counted
-- (a refused attempt costs nothing) and wait_us says when the fuller has one again.
-- The rows are locked in key order, as ratelimit.PostgreSQL's Count locks them, so
-- concurrent attempts on any replica queue on them rather than deadlock.
CREATE FUNCTION login_attempt(acct_key text, pair_key text, ip_key text, at bigint,
    acct_every bigint, acct_burst bigint, pair_every bigint, pair_burst bigint, pair_attack_burst bigint,
    ip_every bigint, ip_burst bigint, OUT ok boolean, OUT wait_us bigint)
LANGUAGE plpgsql AS $$
DECLARE
    a bigint;
    p bigint;
    i bigint;
    burst bigint := pair_burst;
BEGIN
    INSERT INTO rate_limits AS r (key, tat)
        SELECT k, at FROM unnest(ARRAY[acct_key, pair_key, ip_key]) AS k WHERE k IS NOT NULL ORDER BY k
        ON CONFLICT (key) DO UPDATE SET tat = r.tat;
    IF acct_key IS NOT NULL THEN
        SELECT LEAST(GREATEST(tat, at) + acct_every, at + 2 * acct_burst * acct_every) INTO a
            FROM rate_limits WHERE key = acct_key;
        IF a - at > acct_every * acct_burst THEN
            burst := pair_attack_burst;
        END IF;
    END IF;
    SELECT GREATEST(tat, at) INTO p FROM rate_limits WHERE key = pair_key;
    ok := p - at <= pair_every * (burst - 1);
    wait_us := CASE WHEN ok THEN 0 ELSE p - pair_every * (burst - 1) - at END;
    IF ip_key IS NOT NULL THEN
        SELECT GREATEST(tat, at) INTO i FROM rate_limits WHERE key = ip_key;
        IF i - at > ip_every * (ip_burst - 1) THEN
            ok := false;
            wait_us := GREATEST(wait_us, i - ip_every * (ip_burst - 1) - at);
        END IF;
    END IF;
    IF ok THEN
        UPDATE rate_limits SET tat = CASE key WHEN acct_key THEN a WHEN pair_key THEN p + pair_every ELSE i + ip_every END
            WHERE key = ANY (ARRAY[acct_key, pair_key, ip_key]);
    ELSE
        wait_us := GREATEST(wait_us, 1000);
    END IF;
END
$$;

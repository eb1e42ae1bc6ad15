# Helpers of the scripts that run the store in multi-process mode and drive it from outside
# (chaos.sh, renewal-faults.sh); sourced, not run.

# port_free PORT: nothing listens on 127.0.0.1:PORT.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# stack_wait_ready NAME PID BASE LOG SECONDS: waits for the hangar-dev at BASE (process PID,
# logging to LOG) to answer /-/ready; exits the script, naming NAME, if it dies or is not
# ready after SECONDS.
stack_wait_ready() {
  local name=$1 pid=$2 base=$3 stack_log=$4 deadline=$((SECONDS + $5))
  until curl -fsS "$base/-/ready" >/dev/null 2>&1; do
    kill -0 "$pid" 2>/dev/null || { echo "$name: hangar-dev exited; see $stack_log" >&2; tail -n 20 "$stack_log" >&2; exit 1; }
    ((SECONDS < deadline)) || { echo "$name: stack not ready after $5 s" >&2; exit 1; }
    sleep 1
  done
}

# seed_pilot_renewals QUERY N: N card subscriptions of the pilot's, renewed with the card
# payments' dev seed vaults for it (payments charges a stored method only for its owner),
# whose terms ended in the last hour, one a second. QUERY SERVICE SQL runs SQL in a
# service's database and prints the rows.
seed_pilot_renewals() {
  local query=$1 n=$2 token
  token=$("$query" payments "SELECT method_token FROM billing_profiles WHERE account_id = '00000000-0000-4000-8000-000000000001' LIMIT 1")
  [[ -n "$token" ]] || { echo "seed_pilot_renewals: no seeded card in payments" >&2; return 1; }
  "$query" checkout "INSERT INTO subscriptions (id, account_id, email, name, plan_code, add_ons, quantity, currency, price_in_cents,
    term_start, term_end, billing_country, billing_zip, payment_method_token, card_expires_at)
  SELECT gen_random_uuid(), '00000000-0000-4000-8000-000000000001', 'pilot' || i || '@renewal.test', 'Premium', 'performance',
    ARRAY['performance', 'included_geo_us'], 1, 'USD', 47000,
    date_trunc('second', now()) - interval '1 hour' + (i % 3600) * interval '1 second' - interval '1 year',
    date_trunc('second', now()) - interval '1 hour' + (i % 3600) * interval '1 second',
    'US', '94105', '$token', '2031-01-01'
  FROM generate_series(0, $n - 1) AS i" >/dev/null
}

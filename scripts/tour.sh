#!/bin/sh
# The documented tours (docs/guide-api.md, docs/property-api.md), run as
# written against a running server: the public catalogue, accounts and API
# keys, a booking through its life cycle with
# the demo expert, and the property platform from portal signup to a
# cancelled booking. Each call must answer the status shown, or the script
# stops there. CI runs it (.ci/run) against a freshly started server.
#
#   DEMO_PASSWORD=demo-password-1 go run ./cmd/server &   # the demo expert needs it
#   DEMO_PASSWORD=demo-password-1 scripts/tour.sh
#
# B and P are the two APIs (default http://localhost:8080 and :8081). POSIX
# sh, curl, sed and awk only: no jq, no GNU-only date flags. Set VERBOSE=1
# to print every answer.
set -eu

B=${B:-http://localhost:8080}
P=${P:-http://localhost:8081}
: "${DEMO_PASSWORD:?set DEMO_PASSWORD to the server's, for the demo expert}"
run=$(date -u +%Y%m%d%H%M%S)-$$ # makes the accounts of this run unique
body=$(mktemp)
trap 'rm -f "$body"' EXIT

# call STATUS CURL-ARGS...: runs curl, keeps the body in $body and stops
# unless the answer has STATUS.
call() {
	want=$1
	shift
	got=$(curl -s -o "$body" -w '%{http_code}' "$@")
	if [ "$got" != "$want" ]; then
		printf 'tour: %s answered %s, want %s:\n' "$*" "$got" "$want" >&2
		cat "$body" >&2
		echo >&2
		exit 1
	fi
	printf '%s  %s\n' "$got" "$*" | cut -c 1-150
	if [ "${VERBOSE:-}" = 1 ]; then cat "$body"; echo; fi
}

# field NAME: the first string value of NAME in the last answer.
field() {
	awk -v k="\"$1\":\"" '{ i = index($0, k); if (i) { s = substr($0, i + length(k)); print substr(s, 1, index(s, "\"") - 1); exit } }' "$body"
}

# day N: the date N days from today (UTC), YYYY-MM-DD, from the Unix day
# number with shell arithmetic (civil_from_days), not `date -d`.
day() {
	z=$(($(date -u +%s) / 86400 + $1 + 719468))
	era=$((z / 146097))
	doe=$((z - era * 146097))
	yoe=$(((doe - doe / 1460 + doe / 36524 - doe / 146096) / 365))
	doy=$((doe - (365 * yoe + yoe / 4 - yoe / 100)))
	mp=$(((5 * doy + 2) / 153))
	d=$((doy - (153 * mp + 2) / 5 + 1))
	m=$((mp < 10 ? mp + 3 : mp - 9))
	y=$((yoe + era * 400 + (m <= 2)))
	printf '%04d-%02d-%02d\n' "$y" "$m" "$d"
}

echo "== A tour of the public catalogue ($B)"
call 200 "$B/api/v1/experts?country=JP&specialty=food&pageSize=5&locale=ja"
call 200 "$B/api/v1/experts?city=kyo&sort=reviewCount&order=desc"
call 200 "$B/api/v1/experts/demo-expert?locale=ko"
call 200 "$B/api/v1/experts/demo-expert/packages"
PACKAGE=$(field id)
call 200 "$B/api/v1/experts/demo-expert/reviews?sort=rating&order=asc"
call 200 "$B/api/v1/packages?category=food_tour&sort=basePrice&order=asc"
call 200 "$B/api/v1/packages/$PACKAGE?locale=zh-TW"
call 200 "$B/api/v1/travelogues?sort=hotScore&category=food"
SLUG=$(field slug)
call 200 "$B/api/v1/travelogues/$SLUG?locale=zh"
call 200 "$B/api/v1/cities"
call 200 "$B/api/v1/specialties"
call 400 "$B/api/v1/experts?pageSize=101"

echo "== Accounts, tokens and API keys"
ME="me-$run@example.com"
call 201 -X POST "$B/api/v1/auth/register" -d "{\"email\":\"$ME\",\"password\":\"a-long-password\",\"name\":\"Me\",\"role\":\"TOURIST\"}"
call 200 -X POST "$B/api/v1/auth/login" -d "{\"email\":\"$ME\",\"password\":\"a-long-password\"}"
TOKEN=$(field token)
call 200 "$B/api/v1/auth/me" -H "Authorization: Bearer $TOKEN"
call 201 -X POST "$B/api/v1/auth/api-keys" -H "Authorization: Bearer $TOKEN" -d '{"name":"trip agent","scopes":["profile:read","bookings:read"],"rateLimit":60}'
AGENT_KEY=$(field key)
call 200 "$B/api/v1/profile" -H "Authorization: Bearer $AGENT_KEY"

echo "== Bookings, reviews and two-step confirmation"
# The demo expert signs in with DEMO_PASSWORD.
call 200 -X POST "$B/api/v1/auth/login" -d "{\"email\":\"expert@example.com\",\"password\":\"$DEMO_PASSWORD\"}"
EXPERT_TOKEN=$(field token)
call 201 -X POST "$B/api/v1/bookings" -H "Authorization: Bearer $TOKEN" -H "Idempotency-Key: tour-$run" \
	-d "{\"packageId\":\"$PACKAGE\",\"scheduledDate\":\"$(day 30)T09:00:00+09:00\",\"participants\":2}"
BOOKING=$(field id)
call 201 -X POST "$B/api/v1/bookings" -H "Authorization: Bearer $TOKEN" -H "Idempotency-Key: tour-$run" \
	-d "{\"packageId\":\"$PACKAGE\",\"scheduledDate\":\"$(day 30)T09:00:00+09:00\",\"participants\":2}" # replayed
[ "$(field id)" = "$BOOKING" ] || { echo "tour: the retry booked again" >&2; exit 1; }
call 200 -X POST "$B/api/v1/bookings/$BOOKING/accept" -H "Authorization: Bearer $EXPERT_TOKEN"
call 200 -X POST "$B/api/v1/bookings/$BOOKING/start" -H "Authorization: Bearer $EXPERT_TOKEN"
call 200 -X POST "$B/api/v1/bookings/$BOOKING/complete" -H "Authorization: Bearer $EXPERT_TOKEN"
call 201 -X POST "$B/api/v1/bookings/$BOOKING/review" -H "Authorization: Bearer $TOKEN" -d '{"rating":5,"comment":"Wonderful"}'

echo "== Property platform open API ($P)"
call 201 -X POST "$P/portal/api/signup" -d "{\"email\":\"me-$run@example.com\",\"password\":\"a-long-password\",\"name\":\"Me\"}"
PTOKEN=$(field token)
call 201 -X POST "$P/portal/api/keys" -H "Authorization: Bearer $PTOKEN" -d '{"name":"my app","mode":"test"}'
KEY=$(field key)
IN=$(day 40)
OUT=$(day 43)
call 200 "$P/api/v1/properties?city=tokyo&checkIn=$IN&checkOut=$OUT&guests=2&sort=price" -H "X-API-KEY: $KEY"
PROPERTY=$(field id)
call 200 "$P/api/v1/properties/$PROPERTY" -H "X-API-KEY: $KEY"
# The room types that take 2 guests, in the order listed.
ROOMS=$(awk '{ i = index($0, "\"roomTypes\":["); n = split(substr($0, i), part, "{\"id\":\"")
	for (j = 2; j <= n; j++) { id = substr(part[j], 1, index(part[j], "\"") - 1); g = part[j]
		sub(/.*"maxGuests":/, "", g); if (g + 0 >= 2) print id } }' "$body")
call 200 "$P/api/v1/properties/$PROPERTY/availability?from=$IN&to=$OUT" -H "X-API-KEY: $KEY"
# Quote the first of them that can be had for the stay (409 UNAVAILABLE
# names the reason for the others).
QUOTE=
for ROOM in $ROOMS; do
	got=$(curl -s -o "$body" -w '%{http_code}' -X POST "$P/api/v1/quotes" -H "X-API-KEY: $KEY" -H "Idempotency-Key: q-$run-$ROOM" \
		-d "{\"propertyId\":\"$PROPERTY\",\"roomTypeId\":\"$ROOM\",\"checkIn\":\"$IN\",\"checkOut\":\"$OUT\",\"guests\":2}")
	printf '%s  -X POST %s/api/v1/quotes (room type %s)\n' "$got" "$P" "$ROOM"
	if [ "$got" = 201 ]; then QUOTE=$(field id) && break; fi
done
[ -n "$QUOTE" ] || { echo "tour: no room type of $PROPERTY could be quoted for 2 guests from $IN to $OUT" >&2; cat "$body" >&2; exit 1; }
call 201 -X POST "$P/api/v1/bookings" -H "Authorization: Bearer $KEY" -H "Idempotency-Key: b-$run" \
	-d "{\"quoteId\":\"$QUOTE\",\"guest\":{\"firstName\":\"Mei\",\"lastName\":\"Tan\",\"email\":\"mei@example.com\"},\"externalReference\":\"TRIP-$run\"}"
PBOOKING=$(field id)
call 200 "$P/api/v1/bookings?status=CONFIRMED&externalReference=TRIP-$run" -H "X-API-KEY: $KEY"
call 200 -X POST "$P/api/v1/bookings/$PBOOKING/cancel" -H "X-API-KEY: $KEY"
call 422 -X POST "$P/api/v1/bookings/$PBOOKING/cancel" -H "X-API-KEY: $KEY"
call 200 "$P/portal/api/usage" -H "Authorization: Bearer $PTOKEN"

echo "tour: every step answered as the README says"

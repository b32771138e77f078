#!/bin/sh
# From an empty marketplace to a booked expert (docs/guide-api.md, "Guides
# join"), run as written against a server started with no sample data and
# one admin address:
#
#   SAMPLE_DATA=off ADMIN_EMAILS=admin@example.org go run ./cmd/server &
#   ADMIN_EMAIL=admin@example.org scripts/tour-empty.sh
#
# The admin signs up; a guide registers, applies and uploads a document;
# the admin approves; the new expert completes the profile, creates a
# package and opens availability; a traveller finds the expert in the
# catalogue and books; the expert accepts and completes it; the traveller
# reviews it and reports the review; the admin hides it. Each call must
# answer the status shown, or the script stops there. CI runs it (.ci/run)
# against a freshly started empty server. POSIX sh, curl, awk and printf.
set -eu

B=${B:-http://localhost:8080}
: "${ADMIN_EMAIL:?set ADMIN_EMAIL to an address the server's ADMIN_EMAILS names}"
run=$(date -u +%Y%m%d%H%M%S)-$$
handle="guide-$(date -u +%H%M%S)-$$"
body=$(mktemp)
doc=$(mktemp)
img=$(mktemp)
trap 'rm -f "$body" "$doc" "$img"' EXIT

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

field() {
	awk -v k="\"$1\":\"" '{ i = index($0, k); if (i) { s = substr($0, i + length(k)); print substr(s, 1, index(s, "\"") - 1); exit } }' "$body"
}

# has TEXT: the last answer holds TEXT.
has() { grep -q "$1" "$body" || { echo "tour: the answer lacks $1:" >&2; cat "$body" >&2; exit 1; }; }

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

# signup EMAIL ROLE: registers an account and sets TOKEN.
signup() {
	call 201 -X POST "$B/api/v1/auth/register" -d "{\"email\":\"$1\",\"password\":\"a-long-password\",\"name\":\"$2 $run\",\"role\":\"$2\"}"
	TOKEN=$(field token)
}

echo "== An empty marketplace ($B)"
call 200 "$B/api/v1/experts"
has '"total":0'

echo "== The admin signs up"
signup "$ADMIN_EMAIL" TOURIST
ADMIN=$TOKEN
call 200 "$B/api/v1/admin/expert-applications?status=pending" -H "Authorization: Bearer $ADMIN"

echo "== A guide applies, with a document"
signup "guide-$run@example.com" TOURIST
GUIDE=$TOKEN
call 201 -X POST "$B/api/v1/expert-applications" -H "Authorization: Bearer $GUIDE" -d "{\"handle\":\"$handle\",\"name\":\"Aiko Tanaka\",
	\"bio\":{\"en\":\"Born in Kanazawa, I guide food lovers through its markets.\",\"ja\":\"金沢生まれのガイドです。\"},
	\"languages\":[\"ja\",\"en\"],\"specialties\":[\"food\",\"history\"],\"location\":{\"city\":\"Kanazawa\",\"countryCode\":\"JP\"},
	\"currency\":\"JPY\",\"hourlyRate\":4500,\"timezone\":\"Asia/Tokyo\",
	\"weeklySchedule\":{\"mon\":[{\"start\":\"09:00\",\"end\":\"17:00\"}],\"tue\":[{\"start\":\"09:00\",\"end\":\"17:00\"}],\"wed\":[{\"start\":\"09:00\",\"end\":\"17:00\"}],\"thu\":[{\"start\":\"09:00\",\"end\":\"17:00\"}],\"fri\":[{\"start\":\"09:00\",\"end\":\"17:00\"}],\"sat\":[{\"start\":\"09:00\",\"end\":\"17:00\"}],\"sun\":[{\"start\":\"09:00\",\"end\":\"17:00\"}]},
	\"socialLinks\":{\"instagram\":\"https://instagram.com/$handle\"},\"messagingEnabled\":true,
	\"statement\":\"Licensed national guide since 2019; my licence is attached.\"}"
APPLICATION=$(field id)
printf '%%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%%%EOF\n' >"$doc"
call 201 -X POST "$B/api/v1/expert-applications/$APPLICATION/documents" -H "Authorization: Bearer $GUIDE" -F "file=@$doc;type=application/pdf"
call 200 "$B/api/v1/expert-applications/mine" -H "Authorization: Bearer $GUIDE"
has '"status":"pending"'

echo "== The admin reads the document and approves"
call 403 "$B/api/v1/admin/expert-applications?status=pending" -H "Authorization: Bearer $GUIDE"
call 200 "$B/api/v1/admin/expert-applications?status=pending" -H "Authorization: Bearer $ADMIN"
has "$APPLICATION"
call 200 "$B/api/v1/admin/expert-applications/$APPLICATION" -H "Authorization: Bearer $ADMIN"
DOCUMENT=$(awk -v k='"documents":[{"id":"' '{ i = index($0, k); if (i) { s = substr($0, i + length(k)); print substr(s, 1, index(s, "\"") - 1) } }' "$body")
call 200 "$B/api/v1/admin/expert-applications/$APPLICATION/documents/$DOCUMENT" -H "Authorization: Bearer $ADMIN"
call 200 -X POST "$B/api/v1/admin/expert-applications/$APPLICATION/approve" -H "Authorization: Bearer $ADMIN"
call 200 "$B/api/v1/experts/$handle"
call 200 "$B/api/v1/cities"
has Kanazawa

echo "== The expert completes the profile, a package and availability"
call 200 -X PATCH "$B/api/v1/expert/profile" -H "Authorization: Bearer $GUIDE" -d '{"bio":{"en":"Born in Kanazawa, I guide food lovers through Omicho market and the tea houses.","ko":"가나자와 출신 가이드입니다."}}'
# A portrait for the profile: one of the server's own sample pictures.
curl -fsS -o "$img" "$B/media/sample/experts/tour.jpg"
call 201 -X POST "$B/api/v1/expert/profile/images?kind=profile" -H "Authorization: Bearer $GUIDE" -F "file=@$img;type=image/jpeg"
call 201 -X POST "$B/api/v1/packages" -H "Authorization: Bearer $GUIDE" -d '{"title":{"en":"Omicho market breakfast"},
	"description":{"en":"Seafood breakfast and the stalls of Omicho."},"category":"food_tour","basePrice":9000,"currency":"JPY",
	"duration":3,"maxParticipants":4}'
PACKAGE=$(field id)
call 200 -X PATCH "$B/api/v1/packages/$PACKAGE" -H "Authorization: Bearer $GUIDE" -d '{"status":"active"}'
call 200 -X PUT "$B/api/expert/availability" -H "Authorization: Bearer $GUIDE" -d '{"weeklySchedule":{"mon":[{"start":"08:00","end":"18:00"}],"tue":[{"start":"08:00","end":"18:00"}],"wed":[{"start":"08:00","end":"18:00"}],"thu":[{"start":"08:00","end":"18:00"}],"fri":[{"start":"08:00","end":"18:00"}],"sat":[{"start":"08:00","end":"18:00"}],"sun":[{"start":"08:00","end":"18:00"}]},"blockedDates":[],"timezone":"Asia/Tokyo"}'

echo "== A traveller finds the expert and books; the expert accepts"
signup "traveller-$run@example.com" TOURIST
TRAVELLER=$TOKEN
call 200 "$B/api/v1/experts?city=Kanazawa&specialty=food"
has "\"handle\":\"$handle\""
call 200 "$B/api/v1/experts/$handle/packages"
has "$PACKAGE"
call 201 -X POST "$B/api/v1/bookings" -H "Authorization: Bearer $TRAVELLER" -H "Idempotency-Key: empty-$run" \
	-d "{\"packageId\":\"$PACKAGE\",\"scheduledDate\":\"$(day 30)T09:00:00+09:00\",\"participants\":2}"
BOOKING=$(field id)
call 200 -X POST "$B/api/v1/bookings/$BOOKING/accept" -H "Authorization: Bearer $GUIDE"
call 200 -X POST "$B/api/v1/bookings/$BOOKING/start" -H "Authorization: Bearer $GUIDE"
call 200 -X POST "$B/api/v1/bookings/$BOOKING/complete" -H "Authorization: Bearer $GUIDE"

echo "== A review, a report, and the admin hides it"
call 201 -X POST "$B/api/v1/bookings/$BOOKING/review" -H "Authorization: Bearer $TRAVELLER" -d '{"rating":5,"comment":"A wonderful morning"}'
REVIEW=$(field id)
call 200 "$B/api/v1/experts/$handle/reviews"
has "$REVIEW"
signup "reader-$run@example.com" TOURIST
call 201 -X POST "$B/api/v1/reports" -H "Authorization: Bearer $TOKEN" -d "{\"targetType\":\"review\",\"targetId\":\"$REVIEW\",\"reason\":\"misleading\",\"text\":\"Not about this tour.\"}"
call 200 "$B/api/v1/admin/reports?status=open" -H "Authorization: Bearer $ADMIN"
has "$REVIEW"
call 200 -X POST "$B/api/v1/admin/moderation" -H "Authorization: Bearer $ADMIN" -d "{\"action\":\"hide\",\"targetType\":\"review\",\"targetId\":\"$REVIEW\",\"reason\":\"Reported as misleading; confirmed.\"}"
call 200 "$B/api/v1/experts/$handle/reviews"
has '"total":0'
call 200 "$B/api/v1/admin/audit" -H "Authorization: Bearer $ADMIN"
has 'moderation.hide'

echo "tour: from an empty marketplace to a booked, reviewed and moderated expert"

package guideocto

import (
	"context"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/clock"
	"github.com/wayfarer-asia/platform/internal/platform/media"
)

// OCTO's wire format. The fields of a capability are in a struct of their
// own, embedded by pointer: present (null where nullable) when the
// capability is in effect, absent otherwise.

// octoTime writes a time as OCTO does: UTC, whole seconds, Z.
func octoTime(t time.Time) string {
	return t.UTC().Truncate(time.Second).Format("2006-01-02T15:04:05Z")
}

func octoTimePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := octoTime(*t)
	return &s
}

type octoSupplier struct {
	ID       string              `json:"id"`
	Name     string              `json:"name"`
	Endpoint string              `json:"endpoint"`
	Contact  octoSupplierContact `json:"contact"`
	*octoSupplierContent
}

type octoSupplierContact struct {
	Website   *string `json:"website"`
	Email     *string `json:"email"`
	Telephone *string `json:"telephone"`
	Address   *string `json:"address"`
}

type octoSupplierContent struct {
	ShortDescription *string     `json:"shortDescription"`
	Media            []octoMedia `json:"media"`
}

type octoCapability struct {
	ID           string   `json:"id"`
	Revision     int      `json:"revision"`
	Required     bool     `json:"required"`
	Dependencies []string `json:"dependencies"`
	Docs         *string  `json:"docs"`
}

type octoMedia struct {
	Src       string  `json:"src"`
	Type      string  `json:"type"`
	Rel       string  `json:"rel"`
	Title     *string `json:"title"`
	Caption   *string `json:"caption"`
	Copyright *string `json:"copyright"`
}

type octoFeature struct {
	ShortDescription *string `json:"shortDescription"`
	Type             string  `json:"type"`
}

type octoProduct struct {
	ID                   string       `json:"id"`
	InternalName         string       `json:"internalName"`
	Reference            *string      `json:"reference"`
	Locale               string       `json:"locale"`
	TimeZone             string       `json:"timeZone"`
	AllowFreesale        bool         `json:"allowFreesale"`
	InstantConfirmation  bool         `json:"instantConfirmation"`
	InstantDelivery      bool         `json:"instantDelivery"`
	AvailabilityRequired bool         `json:"availabilityRequired"`
	AvailabilityType     string       `json:"availabilityType"`
	DeliveryFormats      []string     `json:"deliveryFormats"`
	DeliveryMethods      []string     `json:"deliveryMethods"`
	RedemptionMethod     string       `json:"redemptionMethod"`
	Options              []octoOption `json:"options"`
	*octoContent
}

// octoContent is the content of a product or an option.
type octoContent struct {
	Title               string        `json:"title"`
	ShortDescription    *string       `json:"shortDescription"`
	Features            []octoFeature `json:"features"`
	FAQs                []struct{}    `json:"faqs"`
	Media               []octoMedia   `json:"media"`
	Locations           []struct{}    `json:"locations"`
	CategoryLabels      []string      `json:"categoryLabels"`
	DurationMinutesFrom int           `json:"durationMinutesFrom"`
	DurationMinutesTo   *int          `json:"durationMinutesTo"`
	Commentary          []struct{}    `json:"commentary"`
}

type octoOption struct {
	ID                          string                 `json:"id"`
	Default                     bool                   `json:"default"`
	InternalName                string                 `json:"internalName"`
	Reference                   *string                `json:"reference"`
	AvailabilityLocalStartTimes []string               `json:"availabilityLocalStartTimes"`
	CancellationCutoff          string                 `json:"cancellationCutoff"`
	CancellationCutoffAmount    int                    `json:"cancellationCutoffAmount"`
	CancellationCutoffUnit      string                 `json:"cancellationCutoffUnit"`
	RequiredContactFields       []string               `json:"requiredContactFields"`
	Restrictions                octoOptionRestrictions `json:"restrictions"`
	Units                       []octoUnit             `json:"units"`
	*octoContent
}

type octoOptionRestrictions struct {
	MinUnits *int `json:"minUnits"`
	MaxUnits *int `json:"maxUnits"`
}

type octoUnit struct {
	ID                    string               `json:"id"`
	InternalName          string               `json:"internalName"`
	Reference             *string              `json:"reference"`
	Type                  string               `json:"type"`
	Restrictions          octoUnitRestrictions `json:"restrictions"`
	RequiredContactFields []string             `json:"requiredContactFields"`
	*octoUnitContent
}

type octoUnitRestrictions struct {
	MinAge        int      `json:"minAge"`
	MaxAge        int      `json:"maxAge"`
	IDRequired    bool     `json:"idRequired"`
	MinQuantity   *int     `json:"minQuantity"`
	MaxQuantity   *int     `json:"maxQuantity"`
	PaxCount      int      `json:"paxCount"`
	AccompaniedBy []string `json:"accompaniedBy"`
}

type octoUnitContent struct {
	Title            *string       `json:"title"`
	ShortDescription string        `json:"shortDescription"`
	Features         []octoFeature `json:"features"`
}

// octoCategories are the category labels of OCTO that a package's
// category names as it is.
var octoCategories = []string{"food", "history", "museums", "nightlife", "outdoors", "sports", "classes", "walking-tours", "day-trips"}

// newOctoProduct writes a package as a product: one option, one unit, the
// content in the locale asked for when octo/content is in effect.
func newOctoProduct(ctx context.Context, p *guide.OctoProduct, oc *request) octoProduct {
	pk := p.Package
	media.Resolve(ctx, &pk)
	maxUnits, one := pk.MaxParticipants, 1
	out := octoProduct{ID: pk.ID, InternalName: pk.Title, Locale: oc.locale, TimeZone: p.Timezone,
		AvailabilityRequired: true, AvailabilityType: "START_TIME", DeliveryFormats: []string{octoDeliveryFormat},
		DeliveryMethods: []string{octoDeliveryMethod}, RedemptionMethod: octoRedemptionMethod}
	opt := octoOption{ID: guide.OctoOptionID, Default: true, InternalName: "Private tour", AvailabilityLocalStartTimes: p.StartTimes(),
		CancellationCutoff: "0 hours", CancellationCutoffUnit: "hour", RequiredContactFields: []string{},
		Restrictions: octoOptionRestrictions{MinUnits: &one, MaxUnits: &maxUnits},
		Units: []octoUnit{{ID: guide.OctoUnitID, InternalName: "Adult", Type: "ADULT", RequiredContactFields: []string{},
			Restrictions: octoUnitRestrictions{MaxAge: 120, MinQuantity: &one, MaxQuantity: &maxUnits, PaxCount: 1, AccompaniedBy: []string{}}}}}
	if oc.content {
		minutes := pk.Duration * 60
		features := []octoFeature{}
		add := func(kind string, texts ...string) {
			for _, t := range texts {
				features = append(features, octoFeature{ShortDescription: &t, Type: kind})
			}
		}
		add("HIGHLIGHT", pk.Highlights...)
		add("INCLUSION", pk.Included...)
		add("EXCLUSION", pk.Excluded...)
		if pk.MeetingPoint != nil {
			add("PREARRIVAL_INFORMATION", "Meeting point: "+*pk.MeetingPoint)
		}
		add("BOOKING_TERM", "The guide accepts each booking: it is PENDING until then. Prices are agreed with the guide; the marketplace charges nothing.")
		labels := []string{"guided-tours", "private-tours"}
		if c := strings.ReplaceAll(pk.Category, "_", "-"); slices.Contains(octoCategories, c) {
			labels = append(labels, c)
		}
		pm := []octoMedia{}
		for i, src := range pk.Images {
			rel := "GALLERY"
			if i == 0 {
				rel = "COVER"
			}
			pm = append(pm, octoMedia{Src: src, Type: imageType(src), Rel: rel})
		}
		out.octoContent = &octoContent{Title: pk.Title, ShortDescription: &pk.Description, Features: features, FAQs: []struct{}{},
			Media: pm, Locations: []struct{}{}, CategoryLabels: labels, DurationMinutesFrom: minutes, DurationMinutesTo: &minutes,
			Commentary: []struct{}{}}
		opt.octoContent = &octoContent{Title: "Private tour", Features: []octoFeature{}, FAQs: []struct{}{}, Media: []octoMedia{},
			Locations: []struct{}{}, CategoryLabels: []string{}, DurationMinutesFrom: minutes, DurationMinutesTo: &minutes, Commentary: []struct{}{}}
		adult := "Adult"
		opt.Units[0].octoUnitContent = &octoUnitContent{Title: &adult, Features: []octoFeature{}}
	}
	out.Options = []octoOption{opt}
	return out
}

// imageType is the media type of an image by its name; a sample image
// without an extension is a JPEG.
func imageType(src string) string {
	if strings.EqualFold(path.Ext(src), ".png") {
		return "image/png"
	}
	return "image/jpeg"
}

type octoOpeningHours struct {
	From string `json:"from"`
	To   string `json:"to"`
}

type octoCalendarDay struct {
	LocalDate    string             `json:"localDate"`
	Available    bool               `json:"available"`
	Status       string             `json:"status"`
	Vacancies    *int               `json:"vacancies"`
	Capacity     *int               `json:"capacity"`
	OpeningHours []octoOpeningHours `json:"openingHours"`
}

type octoAvailability struct {
	ID                 string             `json:"id"`
	LocalDateTimeStart string             `json:"localDateTimeStart"`
	LocalDateTimeEnd   string             `json:"localDateTimeEnd"`
	UTCCutoffAt        string             `json:"utcCutoffAt"`
	AllDay             bool               `json:"allDay"`
	Available          bool               `json:"available"`
	Status             string             `json:"status"`
	Vacancies          *int               `json:"vacancies"`
	Capacity           *int               `json:"capacity"`
	MaxUnits           *int               `json:"maxUnits"`
	OpeningHours       []octoOpeningHours `json:"openingHours"`
	*octoAvailabilityContent
}

type octoAvailabilityContent struct {
	Title            *string `json:"title"`
	ShortDescription string  `json:"shortDescription"`
}

func newOctoAvailability(st *guide.OctoStart, oc *request) octoAvailability {
	out := octoAvailability{ID: st.ID, LocalDateTimeStart: st.Start.Format(time.RFC3339), LocalDateTimeEnd: st.End.Format(time.RFC3339),
		UTCCutoffAt: octoTime(st.CutoffAt), Available: st.Available, Status: st.Status, Vacancies: &st.Vacancies,
		Capacity: &st.Capacity, MaxUnits: &st.Capacity, OpeningHours: []octoOpeningHours{}}
	if oc.content {
		out.octoAvailabilityContent = &octoAvailabilityContent{}
	}
	return out
}

type octoBooking struct {
	ID                string            `json:"id"`
	UUID              string            `json:"uuid"`
	TestMode          bool              `json:"testMode"`
	ResellerReference *string           `json:"resellerReference"`
	SupplierReference *string           `json:"supplierReference"`
	Status            string            `json:"status"`
	UTCCreatedAt      string            `json:"utcCreatedAt"`
	UTCUpdatedAt      string            `json:"utcUpdatedAt"`
	UTCExpiresAt      *string           `json:"utcExpiresAt"`
	UTCRedeemedAt     *string           `json:"utcRedeemedAt"`
	UTCConfirmedAt    *string           `json:"utcConfirmedAt"`
	ProductID         string            `json:"productId"`
	OptionID          string            `json:"optionId"`
	Cancellable       bool              `json:"cancellable"`
	Cancellation      *octoCancellation `json:"cancellation"`
	Freesale          bool              `json:"freesale"`
	AvailabilityID    *string           `json:"availabilityId"`
	Availability      *octoAvailability `json:"availability"`
	Contact           guide.OctoContact `json:"contact"`
	Notes             *string           `json:"notes"`
	DeliveryMethods   []string          `json:"deliveryMethods"`
	Voucher           *octoTicket       `json:"voucher"`
	UnitItems         []octoUnitItem    `json:"unitItems"`
}

// A booking's voucher is its supplier reference, which the expert checks
// against their booking list (MANIFEST): the reseller may show it to the
// traveller as a QR code once the booking is made. OCTO requires every
// product to name at least one delivery method and format.
const (
	octoDeliveryMethod   = "VOUCHER"
	octoDeliveryFormat   = "QRCODE"
	octoRedemptionMethod = "MANIFEST"
)

type octoTicket struct {
	RedemptionMethod string               `json:"redemptionMethod"`
	UTCRedeemedAt    *string              `json:"utcRedeemedAt"`
	DeliveryOptions  []octoDeliveryOption `json:"deliveryOptions"`
}

type octoDeliveryOption struct {
	DeliveryFormat string `json:"deliveryFormat"`
	DeliveryValue  string `json:"deliveryValue"`
}

type octoCancellation struct {
	Refund         string  `json:"refund"`
	Reason         *string `json:"reason"`
	UTCCancelledAt string  `json:"utcCancelledAt"`
}

type octoUnitItem struct {
	UUID              string            `json:"uuid"`
	ResellerReference *string           `json:"resellerReference"`
	SupplierReference *string           `json:"supplierReference"`
	UnitID            string            `json:"unitId"`
	Status            string            `json:"status"`
	UTCRedeemedAt     *string           `json:"utcRedeemedAt"`
	Contact           guide.OctoContact `json:"contact"`
	Ticket            *struct{}         `json:"ticket"`
}

func octoContact(c guide.OctoContact) guide.OctoContact {
	if c.Locales == nil {
		c.Locales = []string{}
	}
	return c
}

func newOctoBooking(b *guide.OctoBooking, oc *request) octoBooking {
	out := octoBooking{ID: b.UUID, UUID: b.UUID, TestMode: b.TestMode, ResellerReference: b.ResellerReference,
		SupplierReference: &b.SupplierReference, Status: b.Status, UTCCreatedAt: octoTime(b.CreatedAt), UTCUpdatedAt: octoTime(b.UpdatedAt),
		UTCExpiresAt: octoTimePtr(b.ExpiresAt), UTCRedeemedAt: octoTimePtr(b.RedeemedAt), UTCConfirmedAt: octoTimePtr(b.ConfirmedAt),
		ProductID: b.ProductID, OptionID: guide.OctoOptionID, Cancellable: b.Cancellable, AvailabilityID: &b.AvailabilityID,
		Contact: octoContact(b.Contact), Notes: b.Notes, DeliveryMethods: []string{octoDeliveryMethod}, UnitItems: []octoUnitItem{}}
	out.Voucher = &octoTicket{RedemptionMethod: octoRedemptionMethod, UTCRedeemedAt: out.UTCRedeemedAt, DeliveryOptions: []octoDeliveryOption{}}
	switch b.Status {
	case guide.OctoPending, guide.OctoConfirmed, guide.OctoRedeemed: // a hold, or what was cancelled or expired, is no voucher
		out.Voucher.DeliveryOptions = append(out.Voucher.DeliveryOptions, octoDeliveryOption{DeliveryFormat: octoDeliveryFormat, DeliveryValue: b.SupplierReference})
	}
	if b.Cancellation != nil {
		out.Cancellation = &octoCancellation{Refund: b.Cancellation.Refund, Reason: b.Cancellation.Reason, UTCCancelledAt: octoTime(b.Cancellation.CancelledAt)}
	}
	loc := time.UTC
	if l, err := clock.LoadLocation(b.Timezone); err == nil {
		loc = l
	}
	zero := 0
	av := octoAvailability{ID: b.AvailabilityID, LocalDateTimeStart: b.Start.In(loc).Format(time.RFC3339),
		LocalDateTimeEnd: b.End.In(loc).Format(time.RFC3339), UTCCutoffAt: octoTime(b.Start.Add(-guide.OctoCutoff)),
		Status: "SOLD_OUT", Vacancies: &zero, OpeningHours: []octoOpeningHours{}}
	if oc.content {
		av.octoAvailabilityContent = &octoAvailabilityContent{}
	}
	out.Availability = &av
	for _, u := range b.UnitItems {
		out.UnitItems = append(out.UnitItems, octoUnitItem{UUID: u.UUID, ResellerReference: u.ResellerReference, UnitID: u.UnitID,
			Status: b.Status, UTCRedeemedAt: out.UTCRedeemedAt, Contact: octoContact(u.Contact)})
	}
	return out
}

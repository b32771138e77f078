// Command peer is the PocketBase side of the load benchmark: the
// application a team would pick instead of writing the guide API, loaded
// with the same experts and packages as collections with the same fields
// and indexes (as far as PocketBase's schema goes), and a bookings
// collection that authenticated users may create records in.
//
// It is its own module (bench/peer/go.mod), not part of ours. Run it as
// PocketBase: `peer serve --http=127.0.0.1:18090 --dir=DATA`, with
//
//	PEER_SEED   the catalogue to load: {"experts":[...], "packages":[...]},
//	            as our API returns them (benchtool setup -capture writes it)
//	PEER_USERS  how many users to create (default 50)
//	PEER_STATE  where to write {"users":[{"id","token"}], "packages":[{"id","countryCode"}]}
//
// The collections are created and loaded on the first start of an empty
// data folder, before the server listens.
package main

import (
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/pocketbase/pocketbase"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

type seed struct {
	Experts  []map[string]any `json:"experts"`
	Packages []map[string]any `json:"packages"`
}

var countries = []string{"CN", "JP", "KR", "TW", "HK"}

func main() {
	// pocketbase.New would take a binary under the temp folder for `go run`
	// and switch on dev mode, which prints every SQL statement; a user's
	// deployment runs without it.
	app := pocketbase.NewWithConfig(pocketbase.Config{DefaultDev: false})
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		if err := load(se.App); err != nil {
			return fmt.Errorf("peer seed: %w", err)
		}
		return se.Next()
	})
	if err := app.Start(); err != nil {
		log.Fatal(err)
	}
}

func load(app core.App) error {
	if _, err := app.FindCollectionByNameOrId("experts"); err == nil {
		return nil // loaded on an earlier start
	}
	seedPath, statePath := os.Getenv("PEER_SEED"), os.Getenv("PEER_STATE")
	if seedPath == "" || statePath == "" {
		return fmt.Errorf("PEER_SEED and PEER_STATE must be set on the first start")
	}
	nUsers := 50
	if v := os.Getenv("PEER_USERS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("PEER_USERS=%q", v)
		}
		nUsers = n
	}
	raw, err := os.ReadFile(filepath.Clean(seedPath))
	if err != nil {
		return err
	}
	var s seed
	if err := json.Unmarshal(raw, &s); err != nil {
		return err
	}
	specialties := map[string]bool{}
	for _, x := range s.Experts {
		for _, sp := range stringList(x["specialties"]) {
			specialties[sp] = true
		}
	}
	var specialtyValues []string
	for sp := range specialties {
		specialtyValues = append(specialtyValues, sp)
	}
	slices.Sort(specialtyValues)

	public := types.Pointer("")
	experts := core.NewBaseCollection("experts")
	experts.ListRule, experts.ViewRule = public, public
	experts.Fields.Add(
		&core.TextField{Name: "handle", Required: true},
		&core.TextField{Name: "ourId"},
		&core.TextField{Name: "name"},
		&core.TextField{Name: "avatar"},
		&core.TextField{Name: "bio", Max: 5000},
		&core.JSONField{Name: "languages"},
		&core.SelectField{Name: "specialties", Values: specialtyValues, MaxSelect: len(specialtyValues)},
		&core.TextField{Name: "location"},
		&core.SelectField{Name: "countryCode", Values: countries, MaxSelect: 1},
		&core.TextField{Name: "currency"},
		&core.TextField{Name: "profileImage"},
		&core.NumberField{Name: "hourlyRate"},
		&core.NumberField{Name: "rating"},
		&core.NumberField{Name: "reviewCount", OnlyInt: true},
		&core.AutodateField{Name: "created", OnCreate: true},
		&core.AutodateField{Name: "updated", OnCreate: true, OnUpdate: true},
	)
	// Our schema's indexes: handle (unique), rating, country. The specialty
	// index of our expert_specialties table has no counterpart: PocketBase
	// keeps a multiple select as a JSON array.
	experts.AddIndex("idx_experts_handle", true, "handle", "")
	experts.AddIndex("idx_experts_rating", false, "rating DESC, id", "")
	experts.AddIndex("idx_experts_country", false, "countryCode", "")
	if err := app.Save(experts); err != nil {
		return err
	}

	packages := core.NewBaseCollection("packages")
	packages.ListRule, packages.ViewRule = public, public
	packages.Fields.Add(
		&core.TextField{Name: "ourId"},
		&core.RelationField{Name: "expert", CollectionId: experts.Id, MaxSelect: 1, Required: true},
		&core.TextField{Name: "expertHandle"},
		&core.TextField{Name: "title", Required: true},
		&core.TextField{Name: "description", Max: 5000},
		&core.TextField{Name: "category"},
		&core.SelectField{Name: "countryCode", Values: countries, MaxSelect: 1},
		&core.NumberField{Name: "basePrice"},
		&core.TextField{Name: "currency"},
		&core.NumberField{Name: "duration", OnlyInt: true},
		&core.NumberField{Name: "maxParticipants", OnlyInt: true},
		&core.JSONField{Name: "images"},
		&core.JSONField{Name: "highlights"},
		&core.JSONField{Name: "included"},
		&core.TextField{Name: "meetingPoint"},
		&core.AutodateField{Name: "created", OnCreate: true},
		&core.AutodateField{Name: "updated", OnCreate: true, OnUpdate: true},
	)
	// Ours: (expert_id, created_at), (is_active, created_at); the benchmark
	// filters by country and sorts by creation.
	packages.AddIndex("idx_packages_expert", false, "expert, created", "")
	packages.AddIndex("idx_packages_country_created", false, "countryCode, created", "")
	packages.AddIndex("idx_packages_created", false, "created", "")
	if err := app.Save(packages); err != nil {
		return err
	}

	users, err := app.FindCollectionByNameOrId("users")
	if err != nil {
		return err
	}
	bookings := core.NewBaseCollection("bookings")
	// Any signed-in user may book, for themselves only; a user sees their own.
	bookings.CreateRule = types.Pointer(`@request.auth.id != "" && @request.body.tourist = @request.auth.id`)
	bookings.ListRule = types.Pointer(`tourist = @request.auth.id`)
	bookings.ViewRule = types.Pointer(`tourist = @request.auth.id`)
	bookings.Fields.Add(
		&core.RelationField{Name: "tourist", CollectionId: users.Id, MaxSelect: 1, Required: true},
		&core.RelationField{Name: "package", CollectionId: packages.Id, MaxSelect: 1, Required: true},
		&core.SelectField{Name: "status", Values: []string{"PENDING", "CONFIRMED", "IN_PROGRESS", "COMPLETED", "CANCELLED"}, MaxSelect: 1, Required: true},
		&core.DateField{Name: "scheduledDate", Required: true},
		&core.NumberField{Name: "participants", OnlyInt: true, Min: types.Pointer(1.0), Max: types.Pointer(50.0)},
		&core.TextField{Name: "customRequest", Max: 2000},
		&core.AutodateField{Name: "created", OnCreate: true},
		&core.AutodateField{Name: "updated", OnCreate: true, OnUpdate: true},
	)
	// Ours: bookings (tourist_id, created_at), (expert_id, created_at).
	bookings.AddIndex("idx_bookings_tourist", false, "tourist, created", "")
	bookings.AddIndex("idx_bookings_package", false, "package, created", "")
	if err := app.Save(bookings); err != nil {
		return err
	}

	type pkgOut struct {
		ID          string `json:"id"`
		CountryCode string `json:"countryCode"`
	}
	type userOut struct {
		ID    string `json:"id"`
		Token string `json:"token"`
	}
	var state struct {
		Users    []userOut `json:"users"`
		Packages []pkgOut  `json:"packages"`
	}
	err = app.RunInTransaction(func(tx core.App) error {
		byHandle := map[string]string{}
		for _, x := range s.Experts {
			r := core.NewRecord(experts)
			for _, f := range []string{"handle", "name", "avatar", "bio", "languages", "specialties", "location",
				"countryCode", "currency", "profileImage", "hourlyRate", "rating", "reviewCount"} {
				if v, ok := x[f]; ok && v != nil {
					r.Set(f, v)
				}
			}
			r.Set("ourId", x["id"])
			if err := tx.Save(r); err != nil {
				return fmt.Errorf("expert %v: %w", x["handle"], err)
			}
			byHandle[fmt.Sprint(x["handle"])] = r.Id
		}
		for _, p := range s.Packages {
			expertID, ok := byHandle[fmt.Sprint(p["expertHandle"])]
			if !ok {
				continue
			}
			r := core.NewRecord(packages)
			for _, f := range []string{"title", "description", "category", "countryCode", "basePrice", "currency", "duration",
				"maxParticipants", "images", "highlights", "included", "meetingPoint", "expertHandle"} {
				if v, ok := p[f]; ok && v != nil {
					r.Set(f, v)
				}
			}
			r.Set("ourId", p["id"])
			r.Set("expert", expertID)
			if err := tx.Save(r); err != nil {
				return fmt.Errorf("package %v: %w", p["id"], err)
			}
			state.Packages = append(state.Packages, pkgOut{r.Id, r.GetString("countryCode")})
		}
		for i := range nUsers {
			u := core.NewRecord(users)
			u.SetEmail(fmt.Sprintf("peer-%03d@example.com", i))
			u.SetPassword("bench-password-" + strconv.Itoa(i))
			u.SetVerified(true)
			u.Set("name", fmt.Sprintf("Peer Traveller %d", i))
			if err := tx.Save(u); err != nil {
				return fmt.Errorf("user %d: %w", i, err)
			}
			tok, err := u.NewAuthToken()
			if err != nil {
				return err
			}
			state.Users = append(state.Users, userOut{u.Id, tok})
		}
		return nil
	})
	if err != nil {
		return err
	}
	out, err := json.MarshalIndent(state, "", "  ")
	if err != nil {
		return err
	}
	log.Printf("peer: loaded %d experts, %d packages, %d users", len(s.Experts), len(state.Packages), len(state.Users))
	return os.WriteFile(statePath, out, 0o600)
}

func stringList(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

package guidehttp

import (
	"net/http"
	"time"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/httpx"
)

// Pending actions, and closing the account, which with an API key is one.

type pendingAccepted struct {
	ActionID   string `json:"actionId"`
	ConfirmURL string `json:"confirmUrl"`
	ExpiresIn  int    `json:"expiresIn"`
	Message    string `json:"message"`
}

// writeAsk answers 202 with a pending action a key asked for: the one
// already open for the same ask, if there was one (the store keeps one).
func (s *Server) writeAsk(w http.ResponseWriter, ask *guide.ActionAsk) {
	a, why := ask.Action, ask.Why
	confirm := "/api/v1/actions/" + a.ID + "/confirm"
	who := "your user token, or this same API key"
	if a.PersonOnly {
		who = "the person's user token, in the app or on the confirmation page; no API key can confirm it"
	}
	if !ask.Created {
		why += " This key had already asked for this: it is the same pending action, and the person was not notified again."
	}
	left := max(a.ExpiresAt.Sub(s.svc.Clock.Now()).Round(time.Second), 0)
	httpx.WriteJSON(w, http.StatusAccepted, pendingAccepted{
		ActionID:   a.ID,
		ConfirmURL: confirm,
		ExpiresIn:  int(left / time.Second),
		Message: why + " Nothing has happened yet. Confirm with POST " + confirm + " (" + who + ") within " +
			httpx.HumanDuration(left) + "; the rules are checked again then.",
	})
}

func (s *Server) handleActionGet(w http.ResponseWriter, r *http.Request) error {
	a, err := s.svc.PendingAction(r.Context(), caller(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, item{a})
	return nil
}

func (s *Server) handleActionConfirm(w http.ResponseWriter, r *http.Request) error {
	c := caller(r.Context())
	a, err := s.svc.ConfirmAction(r.Context(), c, r.PathValue("id"))
	if err != nil {
		return err
	}
	if a.Action == guide.ActionAccountDelete {
		s.catalogChanged()
		s.accountClosed(r, c.User.ID)
	}
	httpx.WriteJSON(w, http.StatusOK, item{a})
	return nil
}

func (s *Server) handleDeletionCheck(w http.ResponseWriter, r *http.Request) error {
	c, err := s.svc.DeletionCheck(r.Context(), caller(r.Context()))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, item{c})
	return nil
}

func (s *Server) handleAccountDelete(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Confirmation *string `json:"confirmation"`
	}
	if err := httpx.Decode(w, r, &in); err != nil {
		return err
	}
	c := caller(r.Context())
	out, err := s.svc.CloseAccount(r.Context(), c, in.Confirmation)
	if err != nil {
		return err
	}
	if out.Asked != nil {
		s.writeAsk(w, out.Asked)
		return nil
	}
	s.catalogChanged()
	s.accountClosed(r, c.User.ID)
	httpx.WriteJSON(w, http.StatusOK, item{struct {
		Deleted   bool      `json:"deleted"`
		DeletedAt time.Time `json:"deletedAt"`
	}{true, *out.ClosedAt}})
	return nil
}

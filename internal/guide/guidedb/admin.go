package guidedb

import (
	"context"
	"database/sql"
	"strconv"

	"github.com/google/uuid"

	"github.com/wayfarer-asia/platform/internal/guide"
	"github.com/wayfarer-asia/platform/internal/platform/store"
)

var _ guide.AdminStore = (*Guide)(nil)

// recordAudit writes what an admin did, in the transaction of the action
// itself, so the log never misses an action nor names one that did not
// happen.
func (g *Guide) recordAudit(ctx context.Context, q store.Querier, actorID, action, targetType, targetID string, reason *string) error {
	_, err := q.ExecContext(ctx, `INSERT INTO audit_log (id, actor_id, action, target_type, target_id, reason, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, uuid.Must(uuid.NewV7()).String(), actorID, action, targetType, targetID, reason, g.clock.Now())
	return err
}

// FindAuditEntries implements guide.AdminStore.
func (g *Guide) FindAuditEntries(ctx context.Context, f guide.AuditFilter) ([]guide.AuditEntry, int, error) {
	where, args := "", []any{}
	if f.TargetType != "" {
		where, args = "WHERE a.target_type = $1 AND a.target_id = $2", []any{f.TargetType, f.TargetID}
	}
	var total int
	if err := g.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM audit_log a `+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	order := "DESC"
	if f.Page.Order == "asc" {
		order = "ASC"
	}
	n := len(args)
	rows, err := g.db.QueryContext(ctx, `SELECT a.id, a.actor_id, u.name, a.action, a.target_type, a.target_id, a.reason, a.created_at
		FROM audit_log a JOIN users u ON u.id = a.actor_id `+where+`
		ORDER BY a.created_at `+order+`, a.id `+order+` LIMIT $`+strconv.Itoa(n+1)+` OFFSET $`+strconv.Itoa(n+2),
		append(args, f.Page.PageSize, f.Page.Offset())...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []guide.AuditEntry{}
	for rows.Next() {
		var e guide.AuditEntry
		var name, reason sql.NullString
		if err := rows.Scan(&e.ID, &e.Actor.ID, &name, &e.Action, &e.TargetType, &e.TargetID, &reason, &e.CreatedAt); err != nil {
			return nil, 0, err
		}
		e.Actor.Name, e.Reason, e.CreatedAt = store.NullString(name), store.NullString(reason), e.CreatedAt.UTC()
		out = append(out, e)
	}
	return out, total, rows.Err()
}

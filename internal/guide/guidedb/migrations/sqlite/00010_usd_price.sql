-- +goose Up
-- sort=basePrice orders packages by their price in US dollars. The
-- converted price is a column of its own, kept by triggers when a
-- package's price or currency changes and when a rate does, so that the
-- sort walks an index like every other sort (see the plan test) instead of
-- converting and sorting every active package. A currency without a rate
-- counts as dollars.
ALTER TABLE packages ADD COLUMN usd_price REAL NOT NULL DEFAULT 0;
UPDATE packages SET usd_price = base_price * COALESCE((SELECT r.usd_rate FROM currency_rates r WHERE r.currency = packages.currency), 1);

-- The raw price is no sort's order any more.
DROP INDEX packages_active_price;
DROP INDEX packages_active_category_price;
DROP INDEX packages_active_country_price;
CREATE INDEX packages_active_price ON packages (usd_price, id, expert_id) WHERE is_active = TRUE;
CREATE INDEX packages_active_category_price ON packages (lower(category), usd_price, id, expert_id) WHERE is_active = TRUE;
CREATE INDEX packages_active_country_price ON packages (country_code, usd_price, id, expert_id) WHERE is_active = TRUE;

-- +goose StatementBegin
CREATE TRIGGER packages_usd_price_insert AFTER INSERT ON packages BEGIN
    UPDATE packages SET usd_price = NEW.base_price * COALESCE((SELECT r.usd_rate FROM currency_rates r WHERE r.currency = NEW.currency), 1)
    WHERE id = NEW.id;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER packages_usd_price_update AFTER UPDATE OF base_price, currency ON packages BEGIN
    UPDATE packages SET usd_price = NEW.base_price * COALESCE((SELECT r.usd_rate FROM currency_rates r WHERE r.currency = NEW.currency), 1)
    WHERE id = NEW.id;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER currency_rates_usd_price_insert AFTER INSERT ON currency_rates BEGIN
    UPDATE packages SET usd_price = base_price * NEW.usd_rate WHERE currency = NEW.currency;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER currency_rates_usd_price_update AFTER UPDATE ON currency_rates BEGIN
    UPDATE packages SET usd_price = base_price WHERE currency = OLD.currency;
    UPDATE packages SET usd_price = base_price * NEW.usd_rate WHERE currency = NEW.currency;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER currency_rates_usd_price_delete AFTER DELETE ON currency_rates BEGIN
    UPDATE packages SET usd_price = base_price WHERE currency = OLD.currency;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER packages_usd_price_insert;
DROP TRIGGER packages_usd_price_update;
DROP TRIGGER currency_rates_usd_price_insert;
DROP TRIGGER currency_rates_usd_price_update;
DROP TRIGGER currency_rates_usd_price_delete;
DROP INDEX packages_active_price;
DROP INDEX packages_active_category_price;
DROP INDEX packages_active_country_price;
CREATE INDEX packages_active_price ON packages (base_price, id, expert_id) WHERE is_active = TRUE;
CREATE INDEX packages_active_category_price ON packages (lower(category), base_price, id, expert_id) WHERE is_active = TRUE;
CREATE INDEX packages_active_country_price ON packages (country_code, base_price, id, expert_id) WHERE is_active = TRUE;
ALTER TABLE packages DROP COLUMN usd_price;

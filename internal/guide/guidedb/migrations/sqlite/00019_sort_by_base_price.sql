-- +goose Up
-- sort=basePrice orders packages by the basePrice field as answered, as
-- the specification says; the order of prices converted to US dollars
-- moved to sort=price. Each sort walks an index of its own.
CREATE INDEX packages_listed_base_price ON packages (base_price, id) WHERE listed = TRUE;
CREATE INDEX packages_listed_category_base_price ON packages (lower(category), base_price, id) WHERE listed = TRUE;
CREATE INDEX packages_listed_country_base_price ON packages (country_code, base_price, id) WHERE listed = TRUE;

-- +goose Down
DROP INDEX packages_listed_base_price;
DROP INDEX packages_listed_category_base_price;
DROP INDEX packages_listed_country_base_price;

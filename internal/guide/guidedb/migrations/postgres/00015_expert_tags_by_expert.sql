-- +goose Up
-- A list page reads its experts' languages and specialties by expert_id
-- (guidedb.expertTagsSQL). The indexes that begin with expert_id (the
-- primary keys, the unique ones on the lowercased tag) find the rows but
-- not their position, so each of a page's ~100 tag rows cost a second
-- descent, into the table, and the rows a sort; at 1,000x the sample
-- catalogue the table's pages are scattered. These indexes hold all
-- three columns in the order the page reads them: on SQLite at 1,000x
-- the full first pages of the three lists (p50) took 0.526-0.538 ms
-- before, 0.466-0.485 after.
CREATE INDEX expert_languages_by_expert ON expert_languages (expert_id, position, language);
CREATE INDEX expert_specialties_by_expert ON expert_specialties (expert_id, position, specialty);

-- +goose Down
DROP INDEX expert_specialties_by_expert;
DROP INDEX expert_languages_by_expert;

-- +goose Up
-- Uploaded avatars were stored as absolute URLs on whatever Host the
-- upload request named. Keep only the path on the API: responses show it
-- on GUIDE_PUBLIC_URL. An avatar from before avatar_key gets its key back
-- from the path, so that closing the account removes the file.
UPDATE users
SET avatar = '/media/' || COALESCE(avatar_key, substr(avatar, strpos(avatar, '/media/avatars/') + 7)),
    avatar_key = COALESCE(avatar_key, substr(avatar, strpos(avatar, '/media/avatars/') + 7))
WHERE avatar LIKE '%://%' AND strpos(avatar, '/media/avatars/') > 0;

-- +goose Down
-- The earlier version shows a path as it is, as it does the sample
-- avatars: nothing to undo.

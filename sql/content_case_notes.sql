-- The text of the notes in `note_ids` (registered by the caller), in a stable order.
SELECT n.note_id, n.note_type, n.text
FROM ({notes}) n
SEMI JOIN note_ids i ON i.note_id = n.note_id
ORDER BY n.note_id

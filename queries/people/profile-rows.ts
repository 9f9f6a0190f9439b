// A profile as OpenPanel's profile routes answer it: its table's columns, snake_case, dates ISO 8601 (UTC).
import type { Rows } from '../core/rows.generated'

type ProfileRow = Rows['people/profile.sql']

/** The answer's fields of a profile row, in OpenPanel's order (the list's keyset column left out). */
export function profileRow(row: ProfileRow) {
  return {
    id: row.id,
    first_name: row.first_name,
    last_name: row.last_name,
    email: row.email,
    avatar: row.avatar,
    properties: row.properties,
    project_id: row.project_id,
    is_external: Boolean(row.is_external),
    created_at: row.created_at,
    last_seen_at: row.last_seen_at,
    groups: row.groups,
  }
}

// Compiled SQL as the exact-SQL tests compare it: comment lines dropped, trailing spaces and blank
// lines ignored.
export function normalizedSql(sql: string): string {
  return sql
    .split('\n')
    .filter((line) => !line.startsWith('--'))
    .map((line) => line.trimEnd())
    .filter(Boolean)
    .join('\n')
}

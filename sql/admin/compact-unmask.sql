-- @name admin.compact-unmask
-- @returns nothing (has the parts of one partition of a combined table rewritten without their masked rows)
-- A mutation, scheduled and not waited for: embedded, a statement with bound parameters holds chDB's one
-- chain of them while it runs, and waiting here held every data statement behind a month's rewrite.
-- Readers keep reading the parts they started with; the rewritten parts hold the same live rows.
ALTER TABLE {table:Identifier} APPLY DELETED MASK IN PARTITION ID {partition:String}
SETTINGS mutations_sync = 0

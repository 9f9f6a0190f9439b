-- @migration 016_page_keys
-- Each event's page (origin and path) as one 128-bit SipHash, stored once when the event is written, as
-- its session and profile are (012_event_keys.sql). /pages orders the open edge's views by session and
-- counts a view as the session's first of its page when the distinct pages seen so far grow: over this
-- key instead of the two strings (insights/pages.sql), with the same counts. On a cluster the Distributed
-- table names it as an alias of the same expression, so the shards compute it from the strings: the same
-- answers.
ALTER TABLE {{table events}} {{on_cluster}}
  ADD COLUMN IF NOT EXISTS page_key UInt128 MATERIALIZED reinterpretAsUInt128(sipHash128(origin, path));

ALTER TABLE {{table events}} {{on_cluster}} MATERIALIZE COLUMN page_key;

{{on_distributed events: ADD COLUMN IF NOT EXISTS page_key UInt128 ALIAS reinterpretAsUInt128(sipHash128(origin, path))}};

-- @migration 012_event_keys
-- Each event's session and profile as the 128-bit SipHash that uniqExact keeps of a String, stored once
-- when the event is written. A chart item read from the rows counts distinct sessions or users over these
-- keys (export/chart-series.sql): the same counts, since uniqExact(String) keeps exactly these hashes, but
-- without hashing every row's string at query time. On a cluster the Distributed table names them as
-- aliases of the same expressions, so the shards compute them from the strings: the same answers.
ALTER TABLE {{table events}} {{on_cluster}}
  ADD COLUMN IF NOT EXISTS session_key UInt128 MATERIALIZED reinterpretAsUInt128(sipHash128(session_id)),
  ADD COLUMN IF NOT EXISTS profile_key UInt128 MATERIALIZED reinterpretAsUInt128(sipHash128(profile_id));

ALTER TABLE {{table events}} {{on_cluster}} MATERIALIZE COLUMN session_key;

ALTER TABLE {{table events}} {{on_cluster}} MATERIALIZE COLUMN profile_key;

{{on_distributed events: ADD COLUMN IF NOT EXISTS session_key UInt128 ALIAS reinterpretAsUInt128(sipHash128(session_id)), ADD COLUMN IF NOT EXISTS profile_key UInt128 ALIAS reinterpretAsUInt128(sipHash128(profile_id))}};

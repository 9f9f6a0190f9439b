-- @migration 015_session_keys
-- Each partial session's id and profile as the 128-bit SipHash that uniqExact keeps of a String (as
-- events have them, 012_event_keys.sql), stored once when the row is written. The open edge's partial
-- rows are combined by `session_key` and a session's visitor is `argMin(profile_key, ...)`: the same
-- sessions and the same visitor_key as grouping by the id text and hashing the earliest profile id, without
-- hashing or copying strings per row.
-- On a cluster the Distributed table names them as aliases of the same expressions, so the shards compute
-- them from the strings: the same answers.
ALTER TABLE {{table sessions}} {{on_cluster}}
  ADD COLUMN IF NOT EXISTS session_key UInt128 MATERIALIZED reinterpretAsUInt128(sipHash128(session_id)),
  ADD COLUMN IF NOT EXISTS profile_key UInt128 MATERIALIZED reinterpretAsUInt128(sipHash128(profile_id));

ALTER TABLE {{table sessions}} {{on_cluster}} MATERIALIZE COLUMN session_key;

ALTER TABLE {{table sessions}} {{on_cluster}} MATERIALIZE COLUMN profile_key;

{{on_distributed sessions: ADD COLUMN IF NOT EXISTS session_key UInt128 ALIAS reinterpretAsUInt128(sipHash128(session_id)), ADD COLUMN IF NOT EXISTS profile_key UInt128 ALIAS reinterpretAsUInt128(sipHash128(profile_id))}};

-- @migration 023_session_list
-- What the sessions list (/insights/:projectId/sessions) shows of a combined session besides its attributes
-- and exit page: its visitor's id as text (visitor_key is its hash, which uniqExact counts) and its events,
-- after the exit page (the compaction's build fills the table by position: admin/compact-build.sql).
ALTER TABLE {{table sessions_settled}} {{on_cluster}}
  ADD COLUMN IF NOT EXISTS s_profile_id String AFTER s_exit_path,
  ADD COLUMN IF NOT EXISTS all_events UInt64 AFTER s_profile_id;

-- The Distributed table on a cluster (the same table again on a single node: nothing to add).
ALTER TABLE sessions_settled {{on_cluster}}
  ADD COLUMN IF NOT EXISTS s_profile_id String AFTER s_exit_path,
  ADD COLUMN IF NOT EXISTS all_events UInt64 AFTER s_profile_id;

ALTER TABLE sessions_settled_stage {{on_cluster}}
  ADD COLUMN IF NOT EXISTS s_profile_id String AFTER s_exit_path,
  ADD COLUMN IF NOT EXISTS all_events UInt64 AFTER s_profile_id;

-- Every day is compacted again (its rows hold neither); until then questions regroup partial rows, exactly.
TRUNCATE TABLE IF EXISTS {{table session_compactions}} {{on_cluster}};

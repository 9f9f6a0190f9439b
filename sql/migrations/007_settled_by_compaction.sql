-- @migration 007_settled_by_compaction
-- The settled-day check (insights/settled-days.sql) from part metadata, not from rows: every question
-- runs it, and it read each window's sessions_settled compactions and sessions partial rows (about 50 ms
-- of a 30-day question on 10M events).
-- - sessions_settled is partitioned by (day, compaction), as page_views_settled is: a day's compactions
--   are then answered by the partition key's min/max that ClickHouse keeps per part. A compaction adds
--   its partition, then drops the day's older ones (readers see two compactions meanwhile, and regroup).
--   The table is derived data: it is created anew, and every day compacted again.
-- - sessions keeps its partial rows counted by (project, hour) in a projection, stored in the same part
--   as the rows (so never behind them); the check reads those counts.
CREATE TABLE IF NOT EXISTS {{table sessions_settled_by_compaction}} {{on_cluster}} AS {{table sessions_settled}}
ENGINE = {{sharded MergeTree()}}
PARTITION BY (day, compaction)
ORDER BY (project_id, session_start, session_id);

DROP TABLE IF EXISTS {{table sessions_settled}} {{on_cluster}} SYNC;

RENAME TABLE {{table sessions_settled_by_compaction}} TO {{table sessions_settled}} {{on_cluster}};

DROP TABLE IF EXISTS {{table sessions_settled_stage}} {{on_cluster}} SYNC;

CREATE TABLE IF NOT EXISTS {{table sessions_settled_stage}} {{on_cluster}} AS {{table sessions_settled}}
ENGINE = {{sharded MergeTree()}}
PARTITION BY (day, compaction)
ORDER BY (project_id, session_start, session_id);

TRUNCATE TABLE IF EXISTS {{table session_compactions}} {{on_cluster}};

ALTER TABLE {{table sessions}} {{on_cluster}}
  ADD PROJECTION IF NOT EXISTS rows_by_hour
  (
    SELECT project_id, toStartOfHour(started_at), count()
    GROUP BY project_id, toStartOfHour(started_at)
  );

ALTER TABLE {{table sessions}} {{on_cluster}} MATERIALIZE PROJECTION rows_by_hour;

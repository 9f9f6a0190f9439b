-- @migration 014_settled_by_month
-- The combined tables are partitioned by month instead of by (day, compaction). A 30-day question read
-- 30 or more parts of each, one per day, and paid for every one: on 10M events, a copy of sessions_settled
-- by month (its parts merged) read the same 30-day window's sessions in 26 ms against 46, and `country` took
-- 52 ms against 68 (medians of 21, interleaved, the same answers).
-- Readers keep rows by the compaction number their record names (migration 013), so nothing else changes
-- for them. A compaction now attaches its day's parts to the month beside the older ones
-- (admin/compact-attach.sql), and a compaction no reader can still be reading is deleted by its rows
-- (admin/compact-drop.sql, a lightweight delete) rather than dropped as a partition.
-- The tables hold derived data: they are created anew (a migration's statements are DDL, every one of them
-- ON CLUSTER on a cluster) and the records emptied, so every day is compacted again; until then readers
-- regroup it, exactly (on 10M events over 90 days, 52-55 s of compaction).
CREATE TABLE IF NOT EXISTS {{table sessions_settled_by_month}} {{on_cluster}} AS {{table sessions_settled}}
ENGINE = {{sharded MergeTree()}}
PARTITION BY toYYYYMM(day)
ORDER BY (project_id, session_start, session_id);

DROP TABLE IF EXISTS {{table sessions_settled}} {{on_cluster}} SYNC;

RENAME TABLE {{table sessions_settled_by_month}} TO {{table sessions_settled}} {{on_cluster}};

DROP TABLE IF EXISTS {{table sessions_settled_stage}} {{on_cluster}} SYNC;

CREATE TABLE IF NOT EXISTS {{table sessions_settled_stage}} {{on_cluster}} AS {{table sessions_settled}}
ENGINE = {{sharded MergeTree()}}
PARTITION BY toYYYYMM(day)
ORDER BY (project_id, session_start, session_id);

CREATE TABLE IF NOT EXISTS {{table page_views_settled_by_month}} {{on_cluster}} AS {{table page_views_settled}}
ENGINE = {{sharded MergeTree()}}
PARTITION BY toYYYYMM(day)
ORDER BY (project_id, bucket, origin, path, session_id);

DROP TABLE IF EXISTS {{table page_views_settled}} {{on_cluster}} SYNC;

RENAME TABLE {{table page_views_settled_by_month}} TO {{table page_views_settled}} {{on_cluster}};

DROP TABLE IF EXISTS {{table page_views_settled_stage}} {{on_cluster}} SYNC;

CREATE TABLE IF NOT EXISTS {{table page_views_settled_stage}} {{on_cluster}} AS {{table page_views_settled}}
ENGINE = {{sharded MergeTree()}}
PARTITION BY toYYYYMM(day)
ORDER BY (project_id, bucket, origin, path, session_id);

CREATE TABLE IF NOT EXISTS {{table page_rollup_by_month}} {{on_cluster}} AS {{table page_rollup}}
ENGINE = {{sharded MergeTree()}}
PARTITION BY toYYYYMM(day)
ORDER BY (project_id, hour, origin, path, previous_hour);

DROP TABLE IF EXISTS {{table page_rollup}} {{on_cluster}} SYNC;

RENAME TABLE {{table page_rollup_by_month}} TO {{table page_rollup}} {{on_cluster}};

DROP TABLE IF EXISTS {{table page_rollup_stage}} {{on_cluster}} SYNC;

CREATE TABLE IF NOT EXISTS {{table page_rollup_stage}} {{on_cluster}} AS {{table page_rollup}}
ENGINE = {{sharded MergeTree()}}
PARTITION BY toYYYYMM(day)
ORDER BY (project_id, hour, origin, path, previous_hour);

-- On a cluster the compaction reads its staged rows through Distributed tables over the shards' staging
-- tables (server/admin/compaction-sql.ts), sharded as the tables they stage.
{{distributed sessions_settled_stage cityHash64(project_id, session_id)}};

{{distributed page_views_settled_stage cityHash64(project_id, session_id)}};

{{distributed page_rollup_stage cityHash64(project_id)}};

TRUNCATE TABLE IF EXISTS {{table session_compactions}} {{on_cluster}};

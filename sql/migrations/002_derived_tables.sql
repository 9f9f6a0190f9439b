-- @migration 002_derived_tables
-- The tables derived from the source tables: the combined tables of settled days, their staging tables,
-- the compactions' records, and the compaction lease (docs/design/sessions.md). They hold nothing that
-- cannot be built again from `sessions` and `events`: the migration runner records this migration with
-- the version of its rendered text, and when that text changes (a session field added to the registry's
-- list, a column of a combined table) it drops these tables and creates them anew; every day is then
-- compacted again, and until then questions regroup partial rows, exactly (server/admin/migrate.ts).
-- A compaction (server/admin/compact.ts) builds one UTC day from the partial rows of its read range,
-- [day - lookback, day + 1 day + lookback), in the staging tables, attaches it to its month beside the
-- day's older compactions, then records it; readers keep the rows of the compaction their record names.
-- The combined tables are partitioned by month: a question over a window reads a few parts, not one a day.

-- Sessions of settled days, combined: one row per session (its start, duration, page views, visitor key and
-- its session fields, as sessions/window-sessions.sql combines partial rows), so that a question reads one
-- row per session for settled time and regroups partial rows only at the open edge. The visitor
-- (profile_id) is kept as the 128-bit SipHash that uniqExact keeps of a string: the same count, read as 16
-- bytes a session. The session's pages: the distinct (origin, path) of all its events with the screen views
-- of each, so that a question whose event filters read only `origin` and `path` keeps a settled session
-- from these arrays instead of scanning the window's events (sessions/window-sessions.sql).
CREATE TABLE IF NOT EXISTS {{table sessions_settled}} {{on_cluster}}
(
  project_id LowCardinality(String),
  day Date,
  compaction UInt64,
  session_id String,
  session_start DateTime64(3, 'UTC'),
  duration_ms Int64,
  all_views UInt64,
  visitor_key UInt128,
  visitor_id String,
  all_events UInt64,
{{session_fields combined_columns}},
  page_origins Array(LowCardinality(String)),
  page_paths Array(String),
  page_views Array(UInt32)
)
ENGINE = {{sharded MergeTree()}}
PARTITION BY toYYYYMM(day)
ORDER BY (project_id, session_start, session_id);

{{distributed sessions_settled cityHash64(project_id, session_id)}};

-- Page views of settled days, combined per (session, page, quarter hour): /pages reads about one row per
-- session and page for settled time, and orders a session's views (next view, previous view of the same
-- page) only at the open edge. TRICKY: a row adds up views of one quarter hour, so a window whose bounds
-- fall on quarter hours (every day-based window: time zones are whole quarter hours from UTC) takes whole
-- rows; other windows read the views themselves.
CREATE TABLE IF NOT EXISTS {{table page_views_settled}} {{on_cluster}}
(
  project_id LowCardinality(String),
  day Date,
  compaction UInt64,
  bucket DateTime('UTC'),
  session_id String,
  origin LowCardinality(String),
  path String,
  views UInt32,
  -- The session's view of this page before the row's first one (1970 when none): the row is the session's
  -- first of this page in a window exactly when this lies before the window's start.
  previous_at DateTime64(3, 'UTC'),
  -- Views followed by another view of the session, and the sum of those gaps.
  with_next UInt32,
  gap_total_ms Int64,
  -- The latest non-empty title of the row's views and that view's key (created_at and id, as in
  -- insights/pages.sql); key 0 and '' when none has a title.
  title String,
  title_key UInt256
)
ENGINE = {{sharded MergeTree()}}
PARTITION BY toYYYYMM(day)
ORDER BY (project_id, bucket, origin, path, session_id);

{{distributed page_views_settled cityHash64(project_id, session_id)}};

-- Page views of settled days rolled up per (page, hour, hour of the previous view): /pages without session
-- filters reads these instead of a row per session, page and quarter hour. TRICKY: `page_rows` counts
-- page_views_settled rows; the row is the session's first of the page in a window exactly when its previous
-- view lies before the window's start, so a window whose bounds fall on whole hours counts a page's sessions
-- as the page_rows whose previous_hour lies before its start. Other windows read page_views_settled.
CREATE TABLE IF NOT EXISTS {{table page_rollup}} {{on_cluster}}
(
  project_id LowCardinality(String),
  day Date,
  compaction UInt64,
  hour DateTime('UTC'),
  origin LowCardinality(String),
  path String,
  -- toStartOfHour of the session's previous view of the page before the row's first one (1970 when none).
  previous_hour DateTime('UTC'),
  page_rows UInt64,
  views UInt64,
  with_next UInt64,
  gap_total_ms Int64,
  -- The latest non-empty title of the views and that view's key (as in page_views_settled).
  title String,
  title_key UInt256
)
ENGINE = {{sharded MergeTree()}}
PARTITION BY toYYYYMM(day)
ORDER BY (project_id, hour, origin, path, previous_hour);

{{distributed page_rollup cityHash64(project_id)}};

-- Settled sessions rolled up per breakdown (queries/core/registry.ts, DIMENSIONS), value and hour of their
-- start: a breakdown without filters whose window starts and ends on whole hours reads these instead of a
-- row per session (insights/dimension-rollup.sql).
CREATE TABLE IF NOT EXISTS {{table session_rollup}} {{on_cluster}}
(
  project_id LowCardinality(String),
  day Date,
  compaction UInt64,
  -- The breakdown's name, and its prefix (or '') and value as the session's s_ columns hold them.
  dimension LowCardinality(String),
  hour DateTime('UTC'),
  prefix LowCardinality(String),
  name String,
  sessions UInt64,
  views UInt64,
  bounced UInt64,
  duration_ms Int64
)
ENGINE = {{sharded MergeTree()}}
PARTITION BY toYYYYMM(day)
ORDER BY (project_id, dimension, hour, prefix, name);

{{distributed session_rollup cityHash64(project_id)}};

-- Where a compaction builds a day before attaching it to its month (the same structure, partitions and
-- keys). On a cluster the compaction reads its staged rows through Distributed tables over the shards'
-- staging tables (server/admin/compaction-sql.ts), sharded as the tables they stage.
CREATE TABLE IF NOT EXISTS {{table sessions_settled_stage}} {{on_cluster}} AS {{table sessions_settled}}
ENGINE = {{sharded MergeTree()}}
PARTITION BY toYYYYMM(day)
ORDER BY (project_id, session_start, session_id);

{{distributed sessions_settled_stage cityHash64(project_id, session_id)}};

CREATE TABLE IF NOT EXISTS {{table page_views_settled_stage}} {{on_cluster}} AS {{table page_views_settled}}
ENGINE = {{sharded MergeTree()}}
PARTITION BY toYYYYMM(day)
ORDER BY (project_id, bucket, origin, path, session_id);

{{distributed page_views_settled_stage cityHash64(project_id, session_id)}};

CREATE TABLE IF NOT EXISTS {{table page_rollup_stage}} {{on_cluster}} AS {{table page_rollup}}
ENGINE = {{sharded MergeTree()}}
PARTITION BY toYYYYMM(day)
ORDER BY (project_id, hour, origin, path, previous_hour);

{{distributed page_rollup_stage cityHash64(project_id)}};

CREATE TABLE IF NOT EXISTS {{table session_rollup_stage}} {{on_cluster}} AS {{table session_rollup}}
ENGINE = {{sharded MergeTree()}}
PARTITION BY toYYYYMM(day)
ORDER BY (project_id, dimension, hour, prefix, name);

{{distributed session_rollup_stage cityHash64(project_id)}};

-- What each compaction of a day saw, per project: how many partial rows its read range held, under which
-- lookback, and the version of the definition that built it (queries/sessions/definition.ts). A
-- day is settled while its range still holds that many rows and its version is the reader's
-- (sessions/settled-days.sql). A compaction's number names its day (the day number times 10^13 plus the
-- build's start in ms), so `compaction IN (...)` alone picks the day's rows; `recorded_at` says since when
-- a newer one replaced an older one (admin/compact-superseded.sql).
CREATE TABLE IF NOT EXISTS {{table session_compactions}} {{on_cluster}}
(
  project_id LowCardinality(String),
  day Date,
  compaction UInt64,
  lookback_seconds UInt32,
  partial_rows UInt64,
  recorded_at DateTime64(3, 'UTC') DEFAULT now64(3),
  definition UInt64 DEFAULT 0
)
ENGINE = {{sharded ReplacingMergeTree(compaction)}}
ORDER BY (project_id, day, lookback_seconds);

{{distributed session_compactions cityHash64(project_id)}};

-- Who may compact: one compaction at a time per database (server/admin/compaction-lease.ts). Each holder
-- claims the next generation, and the claims of one generation carry the same deduplication token
-- (admin/compact-lease-claim.sql), so the engine keeps the first and every contender reads the same winner;
-- on a cluster the tables are replicated to every node, so one claim holds for the cluster.
CREATE TABLE IF NOT EXISTS compaction_claims {{on_cluster}}
(
  generation UInt64,
  holder String,
  claimed_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = {{everywhere MergeTree()}}
ORDER BY generation
SETTINGS non_replicated_deduplication_window = 1000;

-- The holders' log: a row for each day a holder compacts, and a released row when it ends (an insert: a
-- delete would wait for its mutation). The rows of one that died stop counting after the lease time, and
-- every row goes a day after it was taken.
CREATE TABLE IF NOT EXISTS compaction_lease {{on_cluster}}
(
  holder String,
  taken_at DateTime64(3, 'UTC') DEFAULT now64(3),
  released UInt8 DEFAULT 0
)
ENGINE = {{everywhere MergeTree()}}
ORDER BY (taken_at, holder)
TTL toDateTime(taken_at) + INTERVAL 1 DAY;

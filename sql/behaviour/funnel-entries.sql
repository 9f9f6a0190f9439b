-- @name behaviour.funnel_entries
-- @returns value String, reached Array(UInt64), total Array(UInt64)
-- one row (value '') when a group enters inside the window, none otherwise: value, reached (groups per step), total (the same)
-- The funnel of behaviour.funnel_window without a breakdown, with no windowFunnel state for the groups
-- that only enter. windowFunnel gives a group a level of 1 or more exactly when it has an event with bit
-- 0 of its mask (an entry inside the window), so reached[1] counts the groups of entry events. A group
-- with no event matching a later step (mask < 2) reaches at most step 1, so windowFunnel runs only over
-- the groups that have such an event, and gives reached[2..]; each group it counts there has an entry
-- event too, counted in reached[1]. With a breakdown every group's entry value is needed, so such a
-- funnel runs behaviour.funnel_window. The scan is that template's: every step names its event.
WITH scan AS
(
  SELECT /* @group_key */ AS group_key, toUInt64(toUnixTimestamp64Milli(created_at)) AS at, /* @step_mask */ AS mask
  FROM events
  WHERE project_id = {projectId:String}
    AND name IN {stepNames:Array(String)}
    AND created_at >= {start:DateTime64(3, 'UTC')}
    AND created_at < {readTo:DateTime64(3, 'UTC')}
    AND mask != 0
)
SELECT '' AS value, reached, reached AS total
FROM
(
  SELECT arrayConcat([entered], arraySlice(arrayResize(later, {stepCount:UInt8}, toUInt64(0)), 2)) AS reached
  FROM
  (
    SELECT uniqExact(group_key) AS entered
    FROM scan
    WHERE bitTest(mask, 0)
  ) AS entries
  CROSS JOIN
  (
    -- No group reaching step 2 leaves sumForEach an empty array, which arrayResize fills with zeros.
    SELECT sumForEach(arrayMap(level -> toUInt64(level <= deepest), range(1, {stepCount:UInt8} + 1))) AS later
    FROM
    (
      SELECT group_key, windowFunnel({windowMs:UInt64})(at, /* @step_bits */) AS deepest
      FROM scan
      WHERE group_key IN (SELECT group_key FROM scan WHERE mask >= 2)
      GROUP BY group_key
      HAVING deepest >= 2
    )
  ) AS converted
)
WHERE reached[1] > 0

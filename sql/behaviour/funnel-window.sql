-- @name behaviour.funnel_window
-- @returns value String, reached Array(UInt64), total Array(UInt64)
-- per breakdown value, the top ones (one row, value '' without a breakdown): value, reached (groups per step), total (every group's, per step)
-- The funnel of behaviour.funnel when no event can match two steps (distinct event names, none `*`): then
-- windowFunnel's default mode gives exactly the definition. It takes events of one millisecond in step
-- order, whatever their ids, keeps per step the latest start of a chain reaching it, and counts a step
-- within windowMs of the start inclusively; what it would get wrong, one event taking two steps, cannot
-- happen. Bit 0 of an event's mask is set only inside the window, so the entry is inside it. Every step
-- names its event, so the events of other names are skipped before any step's filters are read. A
-- group's value is its first entry event's: toUInt128(id) orders ids as their text does (the hex digits of
-- the same 128 bits), which the UUID type's own comparison does not, and ties events of one millisecond
-- without a string per event. The millisecond and the id are one UInt256 (the millisecond above the id's
-- 128 bits), which orders as the pair does: argMinIf compares a number where a tuple key cost it a
-- generic comparison per event (docs/measurements.md, "The funnel with step filters and a breakdown").
SELECT value, reached, sumForEach(reached) OVER () AS total
FROM
(
  SELECT value, sumForEach(arrayMap(level -> toUInt64(level <= deepest), range(1, {stepCount:UInt8} + 1))) AS reached
  FROM
  (
    SELECT
      group_key,
      argMinIf(label, bitOr(bitShiftLeft(toUInt256(at), 128), toUInt256(toUInt128(id))), bitTest(mask, 0) = 1) AS value,
      windowFunnel({windowMs:UInt64})(at, /* @step_bits */) AS deepest
    FROM
    (
      SELECT /* @group_key */ AS group_key, toUInt64(toUnixTimestamp64Milli(created_at)) AS at, id, /* @breakdown_value */ AS label, /* @step_mask */ AS mask
      FROM events
      WHERE project_id = {projectId:String}
        AND name IN {stepNames:Array(String)}
        AND created_at >= {start:DateTime64(3, 'UTC')}
        AND created_at < {readTo:DateTime64(3, 'UTC')}
        AND mask != 0
    )
    GROUP BY group_key
    HAVING deepest > 0
  )
  GROUP BY value
)
ORDER BY reached[1] DESC, value ASC
LIMIT {breakdownLimit:UInt32}

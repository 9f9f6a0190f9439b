-- @name behaviour.funnel
-- @returns value String, reached Array(UInt64), total Array(UInt64)
-- per breakdown value, the top ones (one row, value '', without a breakdown): value, reached (groups per step), total (every group's, per step)
-- A group (a session, or a visitor) reaches step k when it has k distinct events e1..ek, e_i matching
-- step i, e1 in the window, e1.t <= e2.t <= ... <= ek.t and ek.t - e1.t <= windowMs. Events matching no
-- step are never read past the WHERE; each event's steps are the bits of its mask (bit 0 only inside
-- the window). Per group, the events of one millisecond are one moment, and `advances[j + 1]` is how many
-- steps after the first j its events can take, each step a distinct event. Folding the moments in time
-- order keeps, per step reached, the latest start of a chain reaching it: the later the start, the more
-- room its window leaves, and the events a chain used all lie in moments already folded. When no event
-- can match two steps, behaviour.funnel_window answers the same, faster.
SELECT value, reached, sumForEach(reached) OVER () AS total
FROM
(
  SELECT value, sumForEach(arrayMap(level -> toUInt64(level <= deepest), range(1, {stepCount:UInt8} + 1))) AS reached
  FROM
  (
    SELECT
      group_key,
      argMinIf(moment_value, at, has_entry = 1) AS value,
      arrayLastIndex(start -> start >= 0, arrayFold(
        (starts, moment) -> arrayMap(
          level -> greatest(starts[level], arrayMax(arrayMap(
            j -> if(
              moment.2[j + 1] >= level - j AND (j = 0 OR (starts[j] >= 0 AND moment.1 - starts[j] <= {windowMs:Int64})),
              if(j = 0, moment.1, starts[j]),
              toInt64(-1)),
            range(0, level)))),
          range(1, {stepCount:UInt8} + 1)),
        arraySort(moment -> moment.1, groupArray((at, advances))),
        arrayWithConstant({stepCount:UInt8}, toInt64(-1)))) AS deepest
    FROM
    (
      SELECT
        group_key,
        at,
        max(bitTest(mask, 0)) AS has_entry,
        argMinIf(label, event_key, bitTest(mask, 0) = 1) AS moment_value,
        -- TRICKY: a chain uses at most stepCount events of a moment, so of equal masks no more are kept;
        -- then the sets of events the next steps can use are followed step by step (one event, the
        -- common case, takes a step exactly when its mask has it).
        arraySort(groupArray(mask)) AS sorted_masks,
        arrayFilter((m, i) -> i <= {stepCount:UInt8} OR sorted_masks[i - {stepCount:UInt8}] != m, sorted_masks, arrayEnumerate(sorted_masks)) AS masks,
        arrayMap(j -> if(
          length(masks) = 1,
          toUInt8(bitTest(masks[1], j)),
          tupleElement(arrayFold(
            (state, b) -> if(
              empty(state.1),
              state,
              arrayMap(
                next -> (next, toUInt8(state.2 + NOT empty(next))),
                [arrayDistinct(arrayReduce('groupArrayArray', arrayMap(
                  used -> arrayMap(e -> arraySort(arrayPushBack(used, e)), arrayFilter(e -> bitTest(masks[e], b) = 1 AND NOT has(used, e), arrayEnumerate(masks))),
                  state.1)))])[1]),
            range(j, {stepCount:UInt8}),
            ([CAST([], 'Array(UInt32)')], toUInt8(0))), 2)),
          range(0, {stepCount:UInt8})) AS advances
      FROM
      (
        SELECT /* @group_key */ AS group_key, toUnixTimestamp64Milli(created_at) AS at, toUInt128(id) AS event_key, /* @breakdown_value */ AS label, /* @step_mask */ AS mask
        FROM events
        WHERE project_id = {projectId:String}
          AND created_at >= {start:DateTime64(3, 'UTC')}
          AND created_at < {readTo:DateTime64(3, 'UTC')}
          AND mask != 0
      )
      GROUP BY group_key, at
    )
    GROUP BY group_key
    HAVING deepest > 0
  )
  GROUP BY value
)
ORDER BY reached[1] DESC, value ASC
LIMIT {breakdownLimit:UInt32}

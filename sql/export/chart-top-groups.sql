-- @name export.chart_top_groups
-- @returns fragment: the first `groupLimit` groups of one series item: labels, rank (1-based), ranked by the
--   item's aggregate over the current window descending, then the labels ascending; a group whose
--   aggregate is 0 is left out
SELECT labels, toUInt32(row_number() OVER (ORDER BY total DESC, labels ASC)) AS rank
FROM
(
  SELECT /* @labels */ AS labels, toFloat64(/* @aggregate */) AS total
  FROM events/* @array_join */
  WHERE project_id = {projectId:String}
    AND created_at >= {start:DateTime64(3, 'UTC')}
    AND created_at < {end:DateTime64(3, 'UTC')}/* @conditions */
  GROUP BY labels
  HAVING total != 0
  ORDER BY total DESC, labels ASC
  LIMIT /* @group_limit */
)

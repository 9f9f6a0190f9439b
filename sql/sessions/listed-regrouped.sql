-- @name sessions.listed_regrouped
-- @returns fragment: the regrouped part of a sessions list's page, in UNION ALL after the settled part
--   (sessions/listed-sessions.sql): the page's chosen sessions combined (sessions/regrouped-sessions.sql)
UNION ALL

  SELECT *
  FROM
  (
/* @regrouped_sessions */
  )

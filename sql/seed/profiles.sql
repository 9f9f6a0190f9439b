-- @name seed.profiles
-- @returns nothing (insert)
-- One profile per identified visitor of seed.events run with the same parameters: the same session
-- layout, visitor choice and session times are recomputed from the same hashes (no read of `events`),
-- so `id` equals the visitors' `profile_id`, `last_seen_at` equals their newest event and
-- `created_at` is at or before their first event (some signed up before the window).
-- KEEP IN SYNC: the parameters, the session layout (layer A) and the visitor / session-time
-- expressions (layer B) are copied verbatim from sql/seed/events.sql.
INSERT INTO profiles (id, project_id, first_name, last_name, email, avatar, properties, created_at, last_seen_at)
WITH
  -- ------------------------------------------------------------------ parameters (shared)
  {seed:UInt64} AS seed,
  {events:UInt64} AS total,
  toInt64(greatest({days:UInt32}, 1)) AS span_days,
  span_days * 86400000 AS win_ms,
  toUnixTimestamp64Milli({end:DateTime64(3, 'UTC')}) AS end_ms,
  end_ms - win_ms AS win_start,
  18446744073709551616.0 AS two64,
  252 AS K,
  64 AS P,

  -- ------------------------------------------------------------------ session layout (shared)
  assumeNotNull((
    SELECT (toUInt64(1024), sess_len, sess_first)
    FROM
    (
      WITH
        -- weights of session lengths 1, 2, 3, ... (tail ~ 1/len^2)
        arrayConcat([380, 165, 105, 75, 55, 42], arrayMap(x -> toUInt32(round(1000 / (x * x))), range(7, 55))) AS len_w,
        -- per shuffle p: K session lengths at the quantiles (i + u_p) / K of len_w (u_p in [0.05, 0.95) varies
        -- per p, which smooths the tail), the longest one adjusted so that they sum to exactly T = 1024 rows
        arrayMap(p -> arrayMap(i -> toUInt8(arrayFirstIndex(c -> c > (i + 0.05 + (cityHash64(seed, 1003, p) % 900) / 1000) * arraySum(len_w) / K,
                                                            arrayCumSum(len_w))), range(K)), range(P)) AS base_lens,
        arrayMap(b -> arrayMap((l, i) -> toUInt8(l + (i = K) * (1024 - arraySum(b))), b, arrayEnumerate(b)), base_lens) AS fixed_lens,
        arrayMap((b, p) -> arrayMap(i -> b[i + 1], arraySort(i -> cityHash64(seed, 1001, p, i), range(K))), fixed_lens, range(P)) AS perm_lens
      SELECT
        arrayFlatten(perm_lens) AS sess_len,
        arrayFlatten(arrayMap(ls -> arrayMap((c, l) -> c - l, arrayCumSum(ls), ls), perm_lens)) AS sess_first
    )
  )) AS layout,
  layout.1 AS T,
  intDiv(total + T - 1, T) * K AS sessions_total,
  greatest(intDiv(sessions_total * 9, 100), 1) AS pool_size,

  -- ------------------------------------------------------------------ lookup tables (shared)
  (SELECT arrayFlatten(arrayMap((w, i) -> arrayWithConstant(w, toUInt8(i - 1)), hw, arrayEnumerate(hw)))
   FROM (SELECT [18, 12, 9, 8, 8, 10, 18, 30, 45, 58, 64, 66, 62, 64, 66, 64, 60, 54, 50, 52, 56, 54, 44, 28] AS hw)) AS hour_lut,
  ['', 'US', 'US', 'US', 'US', 'US', 'US', 'GB', 'GB', 'GB', 'DE', 'DE', 'DE', 'FR', 'FR', 'NL', 'SE', 'ES', 'ES',
   'IN', 'IN', 'IN', 'BR', 'BR', 'JP', 'JP', 'CA', 'CA', 'AU', 'AU'] AS city_country,
  [0, -300, -480, -480, -360, -360, -480, 0, 0, 0, 60, 60, 60, 60, 60, 60, 60, 60, 60, 330, 330, 330, -180, -180,
   540, 540, -300, -480, 600, 600] AS city_tz_min,
  (SELECT arrayFlatten(arrayMap((w, i) -> arrayWithConstant(w, toUInt8(i)), cw, arrayEnumerate(cw)))
   FROM (SELECT [10, 60, 45, 40, 30, 25, 25, 60, 15, 10, 40, 25, 15, 40, 12, 25, 18, 20, 15, 35, 30, 25, 30, 15, 35,
                 12, 30, 15, 25, 18] AS cw)) AS city_lut,

  -- ------------------------------------------------------------------ profile tables
  ['Emma', 'Liam', 'Olivia', 'Noah', 'Ava', 'Lucas', 'Mia', 'Ethan', 'Sofia', 'Mateo', 'Aisha', 'Arjun', 'Yuki',
   'Hiro', 'Lena', 'Jonas', 'Clara', 'Hugo', 'Chloe', 'Louis', 'Freya', 'Oscar', 'Isla', 'Leo', 'Priya', 'Rohan',
   'Ananya', 'Diego', 'Camila', 'Lucia', 'Marta', 'Pablo', 'Sven', 'Elin', 'Noor', 'Omar', 'Grace', 'Jack', 'Zoe',
   'Ben'] AS first_names,
  ['Smith', 'Johnson', 'Williams', 'Brown', 'Garcia', 'Miller', 'Davis', 'Martinez', 'Mueller', 'Schmidt',
   'Schneider', 'Fischer', 'Dubois', 'Martin', 'Bernard', 'Rossi', 'Silva', 'Santos', 'Oliveira', 'Sato', 'Suzuki',
   'Takahashi', 'Patel', 'Sharma', 'Singh', 'Kumar', 'Andersson', 'Johansson', 'de Vries', 'Jansen', 'Taylor',
   'Wilson', 'Evans', 'Thomas', 'Roberts', 'Nguyen', 'Kim', 'Chen', 'Wang', 'Lopez'] AS last_names,
  ['gmail.com', 'gmail.com', 'gmail.com', 'outlook.com', 'yahoo.com', 'icloud.com', 'proton.me', 'hey.com'] AS email_domains,
  ['free', 'free', 'free', 'plus', 'plus', 'pro'] AS plans,
  ['US', 'GB', 'DE', 'FR', 'NL', 'SE', 'ES', 'IN', 'BR', 'JP', 'CA', 'AU'] AS locale_countries,
  ['en-US', 'en-GB', 'de-DE', 'fr-FR', 'nl-NL', 'sv-SE', 'es-ES', 'en-IN', 'pt-BR', 'ja-JP', 'en-CA', 'en-AU'] AS locales
SELECT
  concat('user_', lower(hex(reinterpretAsFixedString(cityHash64(seed, 7, vkey))))) AS id,
  {projectId:String} AS project_id,
  first_names[cityHash64(seed, vkey, 70) % length(first_names) + 1] AS first_name,
  last_names[cityHash64(seed, vkey, 71) % length(last_names) + 1] AS last_name,
  lower(concat(first_name, '.', replaceAll(last_name, ' ', ''),
               if(cityHash64(seed, vkey, 72) % 3 = 0, toString(cityHash64(seed, vkey, 73) % 100), ''),
               '@', email_domains[cityHash64(seed, vkey, 74) % length(email_domains) + 1])) AS email,
  if(cityHash64(seed, vkey, 75) % 100 < 60, concat('https://i.pravatar.cc/150?u=', id), '') AS avatar,
  map('plan', plans[cityHash64(seed, vkey, 76) % length(plans) + 1],
      'locale', if(indexOf(locale_countries, home_country) = 0, 'en', locales[indexOf(locale_countries, home_country)]),
      'newsletter', if(cityHash64(seed, vkey, 77) % 100 < 35, 'true', 'false')) AS properties,
  fromUnixTimestamp64Milli(first_ms - if(cityHash64(seed, vkey, 78) % 100 < 40, 0,
                                         toInt64(cityHash64(seed, vkey, 79) % 10368000000)), 'UTC') AS created_at,
  fromUnixTimestamp64Milli(last_ms, 'UTC') AS last_seen_at
FROM
(
  SELECT
    vkey,
    min(sess_start) AS first_ms,
    max(sess_start + sess_dur) AS last_ms,
    city_country[argMin(ci, sess_start)] AS home_country
  FROM
  (
    -- ---------------------------------------------------------------- layer B: visitor and session time (shared)
    SELECT
      s, slen,
      -- visitor: 45% of sessions come from the returning pool (skewed: low pool numbers return often),
      -- the others are one-time visitors; 60% of pool and 8% of one-time visitors are identified (shared)
      cityHash64(seed, s, 10) % 100 < 45 AS returning,
      toUInt64(pool_size * pow(cityHash64(seed, s, 11) / two64, 1.4)) AS pool_idx,
      cityHash64(seed, 1 + returning, returning * pool_idx + (1 - returning) * s) AS vkey,
      cityHash64(seed, 3, vkey) % 1000 < 80 + 520 * returning AS identified,
      -- session city: the visitor's home city, 5% of sessions elsewhere (travel) (shared)
      city_lut[cityHash64(seed, vkey, 21) % length(city_lut) + 1] AS home_ci,
      toUInt8(home_ci + (cityHash64(seed, s, 22) % 100 < 5) * (toInt16(city_lut[cityHash64(seed, s, 23) % length(city_lut) + 1]) - home_ci)) AS ci,
      -- session time: mean gap, duration, start on the local day/night curve, inside [end - days, end) (shared)
      8000 * exp(cityHash64(seed, s, 12) / two64 * log(150 / 8)) AS gap_ms,
      (slen > 1) * toInt64(gap_ms * ((slen - 1) + 0.8 * (cityHash64(seed, s, toUInt32(slen - 1), 40) / two64) - 0.4)) AS sess_dur,
      toInt64(city_tz_min[ci]) * 60000 AS tz_ms,
      intDiv(win_start + tz_ms, 86400000) * 86400000
        + toInt64(cityHash64(seed, s, 41) % toUInt64(span_days)) * 86400000
        + toInt64(hour_lut[cityHash64(seed, s, 42) % length(hour_lut) + 1]) * 3600000
        + toInt64(cityHash64(seed, s, 43) % 3600000) - tz_ms AS cand_start,
      greatest(win_ms - sess_dur - 1, 1) AS avail,
      -- the candidates cover `days` whole local days from the local midnight before win_start: the part
      -- before win_start wraps to the end of the window (a shift by whole days keeps the time of day);
      -- a session that would not end before `end` moves one day earlier
      win_start + positiveModulo(cand_start - win_start, win_ms) AS wrapped_start,
      greatest(wrapped_start - 86400000 * (wrapped_start >= win_start + avail), win_start) AS reg_start,
      -- sessions 0-5 end within the last 4 minutes before `end`, so "live" views always have visitors
      reg_start + toInt64(s < 6) * (greatest(end_ms - 1 - sess_dur - toInt64(cityHash64(seed, s, 45) % 240000), win_start) - reg_start) AS sess_start
    FROM
    (
      -- -------------------------------------------------------------- layer A: sessions that have rows (shared)
      -- Session s starts at row first_row >= s (every session has at least one row), so the sessions that
      -- exist are among the first `events` numbers.
      SELECT
        number AS s,
        intDiv(s, K) AS grp,
        cityHash64(seed, 1002, grp) % P AS perm,
        perm * K + (s % K) + 1 AS sslot,
        grp * T + layout.3[sslot] AS first_row,
        least(toUInt64(layout.2[sslot]), toUInt64(total - first_row)) AS slen
      FROM numbers({events:UInt64})
      WHERE first_row < total
    )
  )
  WHERE identified
  GROUP BY vkey
)

-- @name seed.profiles
-- @returns nothing (insert)
-- One profile per identified visitor (profile_id other than device_id) of the project's events, so it
-- runs after seed.events: names, email, avatar and properties derived from hashes of the seed and the
-- profile id (deterministic), `last_seen_at` the visitor's newest event, `created_at` at or before the
-- first one (some signed up before the window), its groups those its events carry (sql/seed/groups.sql).
INSERT INTO profiles (id, project_id, first_name, last_name, email, avatar, properties, created_at, last_seen_at, groups)
WITH
  {seed:UInt64} AS seed,
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
  visitor AS id,
  {projectId:String} AS project_id,
  first_names[cityHash64(seed, visitor, 70) % length(first_names) + 1] AS first_name,
  last_names[cityHash64(seed, visitor, 71) % length(last_names) + 1] AS last_name,
  lower(concat(first_name, '.', replaceAll(last_name, ' ', ''),
               if(cityHash64(seed, visitor, 72) % 3 = 0, toString(cityHash64(seed, visitor, 73) % 100), ''),
               '@', email_domains[cityHash64(seed, visitor, 74) % length(email_domains) + 1])) AS email,
  if(cityHash64(seed, visitor, 75) % 100 < 60, concat('https://i.pravatar.cc/150?u=', visitor), '') AS avatar,
  map('plan', plans[cityHash64(seed, visitor, 76) % length(plans) + 1],
      'locale', if(indexOf(locale_countries, home_country) = 0, 'en', locales[indexOf(locale_countries, home_country)]),
      'newsletter', if(cityHash64(seed, visitor, 77) % 100 < 35, 'true', 'false')) AS properties,
  fromUnixTimestamp64Milli(toUnixTimestamp64Milli(first_seen) - if(cityHash64(seed, visitor, 78) % 100 < 40, 0,
                           toInt64(cityHash64(seed, visitor, 79) % 10368000000)), 'UTC') AS created_at,
  last_seen AS last_seen_at,
  visitor_groups AS groups
FROM
(
  SELECT profile_id AS visitor, min(created_at) AS first_seen, max(created_at) AS last_seen, argMin(country, created_at) AS home_country,
    argMin(groups, created_at) AS visitor_groups
  FROM events
  WHERE project_id = {projectId:String} AND profile_id != device_id
  GROUP BY profile_id
)

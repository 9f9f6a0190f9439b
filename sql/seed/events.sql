-- @name seed.events
-- @returns nothing (insert)
-- Deterministic synthetic traffic for one project: exactly `events` rows, spread over the `days` days
-- before `end` (the newest possible event time). Every value is derived from cityHash64 of the seed
-- and row / session / visitor numbers (never rand()), so the same parameters always give the same
-- rows, ids included. Runs entirely inside ClickHouse; `sessions` is filled by its materialized view.
-- One statement writes the rows numbered [first, first + count) of the `events`; a row depends only on
-- its number and the parameters, so any split into batches gives the same rows (batches start at
-- multiples of 65536, see the layout note, so no session is split either).
--
-- Layout: rows come in groups of T = 1024 rows holding K = 252 sessions. Each group uses one of P
-- shuffled, heavy-tailed sets of session lengths (about 40% one-event sessions, a tail to ~60
-- events), so row -> (session, position in session) is a constant-array lookup, O(1) per row. The
-- last group is cut at `events` rows (its sessions are shortened, never broken). With
-- max_block_size = 65536 (a multiple of T, set below) no insert block splits a session, so the
-- materialized view writes exactly one `sessions` row per session, whatever the insert threads.
-- Visitors: 55% of sessions are one-time visitors; the rest go to a returning pool with a skewed
-- choice (a few visitors with many sessions). Device/browser/os/home city/sdk/groups are per
-- visitor; referrer, UTMs, start time (local day/night curve of the city) and gaps are per session;
-- page (Zipf-like over ~280 paths on 2 origins), event name and properties are per event.
-- About 15% of visitors are identified (profile_id = a user id; otherwise profile_id = device_id).
-- Sessions 0-5 always end in the last 4 minutes before `end`, so there are live visitors.
--
-- Constant tables are built once in scalar subqueries; per-row values are computed in two nested
-- layers so that aliases stay small (the analyzer copies an alias's expression at every use).
-- sql/seed/profiles.sql then creates one profile per identified visitor from the rows written here.
INSERT INTO events (
  id, project_id, name, device_id, profile_id, session_id, created_at, path, origin, title,
  referrer, referrer_name, referrer_type, utm_source, utm_medium, utm_campaign, utm_term, utm_content,
  country, region, city, latitude, longitude, device, brand, model, browser, browser_version, os,
  os_version, duration, revenue, groups, properties, sdk_name, sdk_version, imported_at
)
WITH
  -- ------------------------------------------------------------------ parameters
  {seed:UInt64} AS seed,
  {events:UInt64} AS total,
  toInt64(greatest({days:UInt32}, 1)) AS span_days,
  span_days * 86400000 AS win_ms,
  toUnixTimestamp64Milli({end:DateTime64(3, 'UTC')}) AS end_ms,
  end_ms - win_ms AS win_start,
  18446744073709551616.0 AS two64,
  252 AS K,
  64 AS P,

  -- ------------------------------------------------------------------ session layout
  assumeNotNull((
    SELECT (toUInt64(1024), row_sess, row_pos, row_len)
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
        arrayFlatten(arrayMap(ls -> arrayMap((l, j) -> arrayWithConstant(l, toUInt16(j)), ls, range(K)), perm_lens)) AS row_sess,
        arrayFlatten(arrayMap(ls -> arrayMap(l -> range(l), ls), perm_lens)) AS row_pos,
        arrayFlatten(arrayMap(ls -> arrayMap(l -> arrayWithConstant(l, l), ls), perm_lens)) AS row_len
    )
  )) AS layout,
  layout.1 AS T,
  intDiv(total + T - 1, T) * K AS sessions_total,
  greatest(intDiv(sessions_total * 9, 100), 1) AS pool_size,

  -- ------------------------------------------------------------------ lookup tables
  -- Per-row code is mostly branch-free (arithmetic on 0/1 conditions, lookups in constant arrays),
  -- which measured faster than if/multiIf here. A nested list X is stored flat with offsets and
  -- lengths: pick = X.1[X.2[i] + h % X.3[i] + 1]. Tuple-valued scalar subqueries are wrapped in
  -- assumeNotNull: they are Nullable otherwise, and Nullable spreads to (and slows) every row value.
  -- local hour-of-day weights (per mille) -> lookup of 1000 hours
  (SELECT arrayFlatten(arrayMap((w, i) -> arrayWithConstant(w, toUInt8(i - 1)), hw, arrayEnumerate(hw)))
   FROM (SELECT [18, 12, 9, 8, 8, 10, 18, 30, 45, 58, 64, 66, 62, 64, 66, 64, 60, 54, 50, 52, 56, 54, 44, 28] AS hw)) AS hour_lut,
  -- cities; entry 1 = unknown location
  ['', 'US', 'US', 'US', 'US', 'US', 'US', 'GB', 'GB', 'GB', 'DE', 'DE', 'DE', 'FR', 'FR', 'NL', 'SE', 'ES', 'ES',
   'IN', 'IN', 'IN', 'BR', 'BR', 'JP', 'JP', 'CA', 'CA', 'AU', 'AU'] AS city_country,
  ['', 'New York', 'California', 'California', 'Illinois', 'Texas', 'Washington', 'England', 'England', 'Scotland',
   'Berlin', 'Bavaria', 'Hamburg', 'Île-de-France', 'Auvergne-Rhône-Alpes', 'North Holland', 'Stockholm', 'Madrid',
   'Catalonia', 'Karnataka', 'Maharashtra', 'Delhi', 'São Paulo', 'Rio de Janeiro', 'Tokyo', 'Osaka', 'Ontario',
   'British Columbia', 'New South Wales', 'Victoria'] AS city_region,
  ['', 'New York', 'Los Angeles', 'San Francisco', 'Chicago', 'Austin', 'Seattle', 'London', 'Manchester', 'Edinburgh',
   'Berlin', 'Munich', 'Hamburg', 'Paris', 'Lyon', 'Amsterdam', 'Stockholm', 'Madrid', 'Barcelona', 'Bengaluru',
   'Mumbai', 'New Delhi', 'São Paulo', 'Rio de Janeiro', 'Tokyo', 'Osaka', 'Toronto', 'Vancouver', 'Sydney',
   'Melbourne'] AS city_name,
  assumeNotNull((SELECT (arrayMap((x, i) -> if(i = 1, NULL, x), lat, arrayEnumerate(lat)), arrayMap((x, i) -> if(i = 1, NULL, x), lon, arrayEnumerate(lon)))
   FROM (SELECT [0, 40.7128, 34.0522, 37.7749, 41.8781, 30.2672, 47.6062, 51.5074, 53.4808, 55.9533, 52.52, 48.1351,
                 53.5511, 48.8566, 45.764, 52.3676, 59.3293, 40.4168, 41.3874, 12.9716, 19.076, 28.6139, -23.5505,
                 -22.9068, 35.6762, 34.6937, 43.6532, 49.2827, -33.8688, -37.8136] AS lat,
                [0, -74.006, -118.2437, -122.4194, -87.6298, -97.7431, -122.3321, -0.1278, -2.2426, -3.1883, 13.405,
                 11.582, 9.9937, 2.3522, 4.8357, 4.9041, 18.0686, -3.7038, 2.1686, 77.5946, 72.8777, 77.209, -46.6333,
                 -43.1729, 139.6503, 135.5023, -79.3832, -123.1207, 151.2093, 144.9631] AS lon))) AS city_latlon,
  -- UTC offset in minutes (standard time; good enough for a day/night curve)
  [0, -300, -480, -480, -360, -360, -480, 0, 0, 0, 60, 60, 60, 60, 60, 60, 60, 60, 60, 330, 330, 330, -180, -180,
   540, 540, -300, -480, 600, 600] AS city_tz_min,
  -- city weights -> lookup
  (SELECT arrayFlatten(arrayMap((w, i) -> arrayWithConstant(w, toUInt8(i)), cw, arrayEnumerate(cw)))
   FROM (SELECT [10, 60, 45, 40, 30, 25, 25, 60, 15, 10, 40, 25, 15, 40, 12, 25, 18, 20, 15, 35, 30, 25, 30, 15, 35,
                 12, 30, 15, 25, 18] AS cw)) AS city_lut,
  (SELECT arrayMap(c -> multiIf(c = 'GB', 'GBP', c IN ('DE', 'FR', 'NL', 'ES'), 'EUR', 'USD'), city_country)) AS city_currency,
  -- device profiles: device, brand, model, os, os versions, browser ids (repeats = weight), weight
  ['desktop', 'desktop', 'desktop', 'desktop', 'mobile', 'mobile', 'mobile', 'mobile', 'mobile', 'mobile', 'mobile',
   'mobile', 'mobile', 'mobile', 'mobile', 'tablet', 'tablet', 'tablet'] AS dev_device,
  ['', 'Apple', '', '', 'Apple', 'Apple', 'Apple', 'Apple', 'Samsung', 'Samsung', 'Samsung', 'Google', 'Google',
   'Xiaomi', 'OnePlus', 'Apple', 'Apple', 'Samsung'] AS dev_brand,
  ['', 'Macintosh', '', '', 'iPhone 15', 'iPhone 14', 'iPhone 13', 'iPhone 15 Pro', 'Galaxy S23', 'Galaxy S24',
   'Galaxy A54', 'Pixel 8', 'Pixel 7', 'Redmi Note 12', 'OnePlus 11', 'iPad Air', 'iPad Pro', 'Galaxy Tab S9'] AS dev_model,
  ['Windows', 'macOS', 'Linux', 'Chrome OS', 'iOS', 'iOS', 'iOS', 'iOS', 'Android', 'Android', 'Android', 'Android',
   'Android', 'Android', 'Android', 'iOS', 'iOS', 'Android'] AS dev_os,
  assumeNotNull((SELECT (arrayFlatten(x), arrayMap((c, l) -> c - l, arrayCumSum(arrayMap(a -> length(a), x)), arrayMap(a -> length(a), x)), arrayMap(a -> length(a), x))
   FROM (SELECT [['10', '11', '11'], ['13.6', '14.4', '14.5', '14.5', '15.1'], [''], ['124.0.6367', '125.0.6422'],
                 ['17.4', '17.5', '17.5', '18.0'], ['16.7', '17.4', '17.5', '18.0'], ['16.7', '17.4', '17.5'], ['17.5', '18.0', '18.0'],
                 ['13', '14', '14'], ['14'], ['13', '14'], ['14'], ['13', '14'], ['12', '13'], ['13', '14'],
                 ['17.4', '17.5'], ['17.5', '18.0'], ['13', '14']] AS x))) AS dev_osv,
  assumeNotNull((SELECT (arrayFlatten(x), arrayMap((c, l) -> c - l, arrayCumSum(arrayMap(a -> length(a), x)), arrayMap(a -> length(a), x)), arrayMap(a -> length(a), x))
   FROM (SELECT [[1, 1, 1, 1, 1, 1, 2, 2, 3], [4, 4, 4, 4, 1, 1, 1, 3], [1, 1, 1, 3, 3], [1],
                 [5, 5, 5, 5, 5, 5, 5, 1], [5, 5, 5, 5, 5, 5, 5, 1], [5, 5, 5, 5, 5, 5, 5, 1], [5, 5, 5, 5, 5, 5, 5, 1],
                 [1, 1, 1, 6, 6], [1, 1, 1, 6, 6], [1, 1, 1, 6, 6], [1], [1], [1], [1], [5, 5, 5, 1], [5, 5, 5, 1], [1, 6]] AS x))) AS dev_browsers,
  (SELECT arrayFlatten(arrayMap((w, i) -> arrayWithConstant(w, toUInt8(i)), dw, arrayEnumerate(dw)))
   FROM (SELECT [290, 170, 40, 15, 90, 70, 50, 40, 45, 25, 30, 20, 15, 20, 10, 35, 20, 15] AS dw)) AS dev_lut,
  ['Chrome', 'Edge', 'Firefox', 'Safari', 'Mobile Safari', 'Samsung Internet'] AS br_name,
  -- browser versions, appended after the os versions (Mobile Safari's version is the iOS version)
  assumeNotNull((SELECT (arrayConcat(dev_osv.1, arrayFlatten(x)),
           arrayMap((c, l) -> c - l + length(dev_osv.1), arrayCumSum(arrayMap(a -> length(a), x)), arrayMap(a -> length(a), x)),
           arrayMap(a -> length(a), x))
   FROM (SELECT [['122.0.0.0', '123.0.0.0', '124.0.0.0', '124.0.0.0', '125.0.0.0'], ['123.0.0.0', '124.0.0.0', '125.0.0.0'],
                 ['124.0', '125.0', '126.0'], ['17.4', '17.5', '17.5', '18.0'], [''], ['24.0', '25.0']] AS x))) AS versions,
  ['1.0.0', '1.0.1', '1.0.1', '1.1.0', '1.1.0', '1.1.0'] AS sdk_versions,
  (SELECT arrayMap(i -> concat('org_', toString(i)), range(250))) AS org_names,
  -- referrers; entry 1 = direct
  ['', 'Google', 'Bing', 'DuckDuckGo', 'Twitter', 'Facebook', 'Reddit', 'LinkedIn', 'GitHub', 'Hacker News',
   'Product Hunt', 'Medium'] AS ref_name,
  ['', 'search', 'search', 'search', 'social', 'social', 'social', 'social', 'link', 'link', 'link', 'link'] AS ref_type,
  assumeNotNull((SELECT (arrayFlatten(x), arrayMap((c, l) -> c - l, arrayCumSum(arrayMap(a -> length(a), x)), arrayMap(a -> length(a), x)), arrayMap(a -> length(a), x))
   FROM (SELECT [[''], ['https://www.google.com/'], ['https://www.bing.com/'], ['https://duckduckgo.com/'],
                 ['https://t.co/x7Yq2LmN4a', 'https://t.co/Kd93jfPq1z', 'https://t.co/bW8nTq0sHe', 'https://x.com/'],
                 ['https://www.facebook.com/', 'https://l.facebook.com/', 'https://m.facebook.com/'],
                 ['https://www.reddit.com/r/BuyItForLife/', 'https://www.reddit.com/r/onebag/', 'https://www.reddit.com/r/EDC/',
                  'https://old.reddit.com/'],
                 ['https://www.linkedin.com/', 'https://www.linkedin.com/feed/', 'https://lnkd.in/eQx8v2Wc'],
                 ['https://github.com/acme/acme-js', 'https://github.com/trending'],
                 ['https://news.ycombinator.com/', 'https://news.ycombinator.com/item?id=39871234'],
                 ['https://www.producthunt.com/posts/acme'],
                 ['https://medium.com/@acme/why-we-build-gear-to-last-4f2e1c9a7b21', 'https://medium.com/']] AS x))) AS ref_urls,
  (SELECT arrayFlatten(arrayMap((w, i) -> arrayWithConstant(w, toUInt8(i)), rw, arrayEnumerate(rw)))
   FROM (SELECT [450, 255, 35, 25, 35, 30, 30, 20, 40, 30, 20, 30] AS rw)) AS ref_lut,
  -- UTM kinds: 0 none, 1 paid search (Google), 2 social post, 3 newsletter (direct), 4 referral link
  -- utm_source by (kind, referrer): entry kind * 12 + referrer
  (SELECT arrayFlatten(arrayMap(kd -> arrayMap(r -> [ '', 'google', lower(r), 'newsletter', lower(replaceAll(r, ' ', ''))][kd + 1], ref_name), range(5)))) AS utm_sources,
  ['', 'cpc', 'social', 'email', 'referral'] AS utm_mediums,
  assumeNotNull((SELECT (arrayFlatten(x), arrayMap((c, l) -> c - l, arrayCumSum(arrayMap(a -> length(a), x)), arrayMap(a -> length(a), x)), arrayMap(a -> length(a), x))
   FROM (SELECT [[''], ['brand_search', 'spring_sale', 'competitor_terms', 'generic_bags'], ['spring_sale', 'launch_week', 'summer_drop'],
                 ['weekly_digest', 'product_update', 'spring_sale'], ['launch_week', 'partner_program']] AS x))) AS utm_campaigns,
  assumeNotNull((SELECT (arrayFlatten(x), arrayMap((c, l) -> c - l, arrayCumSum(arrayMap(a -> length(a), x)), arrayMap(a -> length(a), x)), arrayMap(a -> length(a), x))
   FROM (SELECT [[''], ['ad_a', 'ad_b', 'ad_c'], ['post', 'video', 'carousel'], ['header_link', 'cta_button', 'footer_link'], ['']] AS x))) AS utm_contents,
  assumeNotNull((SELECT (arrayFlatten(x), arrayMap((c, l) -> c - l, arrayCumSum(arrayMap(a -> length(a), x)), arrayMap(a -> length(a), x)), arrayMap(a -> length(a), x))
   FROM (SELECT [[''], ['acme', 'acme backpack', 'best travel backpack', 'waterproof jacket', 'minimalist wallet', 'smart watch deals'],
                 [''], [''], ['']] AS x))) AS utm_terms,
  -- pages: shop core pages, products, blog posts (https://acme.shop) and a help center (https://help.acme.shop),
  -- ordered by popularity rank: core pages first, the rest in a fixed shuffled order
  assumeNotNull((
    SELECT (page_path, page_origin, page_title, page_props, product_slugs, product_names, product_cents,
            arrayMap(x -> concat('/products/', x), product_slugs), arrayMap(x -> concat(x, ' — Acme'), product_names),
            arrayMap(c -> concat(toString(intDiv(c, 100)), '.', leftPad(toString(c % 100), 2, '0')), product_cents),
            arrayMap(i -> concat('SKU-', toString(1000 + i)), range(length(product_slugs))))
    FROM
    (
      WITH
        ['/', '/pricing', '/products', '/blog', '/signup', '/login', '/about', '/features', '/contact', '/cart',
         '/checkout', '/search', '/careers', '/changelog', '/stores', '/reviews', '/shipping', '/privacy', '/terms',
         '/account'] AS core_paths,
        ['Acme — Everyday gear, built to last', 'Membership pricing — Acme', 'All products — Acme', 'Blog — Acme',
         'Create your account — Acme', 'Log in — Acme', 'About us — Acme', 'Why Acme — Acme', 'Contact us — Acme',
         'Your cart — Acme', 'Checkout — Acme', 'Search — Acme', 'Careers — Acme', 'What''s new — Acme',
         'Find a store — Acme', 'Customer reviews — Acme', 'Shipping & delivery — Acme', 'Privacy policy — Acme',
         'Terms of service — Acme', 'Your account — Acme'] AS core_titles,
        ['classic', 'urban', 'alpine', 'vintage', 'compact', 'premium', 'everyday', 'travel', 'smart', 'eco', 'ultra',
         'pro'] AS adjs,
        ['backpack', 'sneaker', 'jacket', 'watch', 'headphones', 'bottle', 'lamp', 'desk', 'chair', 'wallet'] AS nouns,
        ['packing light', 'hiking', 'commuting', 'minimalism', 'travel hacks', 'gift ideas', 'sustainability', 'running',
         'office setup', 'home lighting', 'coffee', 'camping', 'photography', 'city breaks', 'gear care',
         'remote work'] AS topics,
        ['Maya Chen', 'Tom Berg', 'Priya Nair', 'Lucas Silva'] AS authors,
        ['orders', 'shipping', 'returns', 'account', 'payments', 'warranty'] AS help_sections,
        ['overview', 'tracking', 'changes', 'cancellation', 'faq', 'contact-support', 'international', 'refunds',
         'gift-cards', 'troubleshooting'] AS help_articles,
        CAST(map(), 'Map(String, String)') AS no_props,
        arrayFlatten(arrayMap(a -> arrayMap(b -> concat(a, '-', b), nouns), adjs)) AS product_slugs,
        arrayFlatten(arrayMap(a -> arrayMap(b -> initcap(concat(a, ' ', b)), nouns), adjs)) AS product_names,
        arrayFlatten(arrayMap(a -> nouns, adjs)) AS product_cats,
        arrayMap(i -> toInt64(999 + (cityHash64('acme-price', i) % 40) * 500), range(length(product_slugs))) AS product_cents,
        arrayFlatten(arrayMap(t -> [concat('/blog/beginners-guide-to-', replaceAll(t, ' ', '-')),
                                    concat('/blog/', replaceAll(t, ' ', '-'), '-best-practices'),
                                    concat('/blog/common-', replaceAll(t, ' ', '-'), '-mistakes'),
                                    concat('/blog/how-we-think-about-', replaceAll(t, ' ', '-')),
                                    concat('/blog/the-future-of-', replaceAll(t, ' ', '-'))], topics)) AS blog_paths,
        arrayFlatten(arrayMap(t -> [concat('A beginner''s guide to ', t, ' — Acme Blog'),
                                    concat(upper(substring(t, 1, 1)), substring(t, 2), ': best practices — Acme Blog'),
                                    concat('Common ', t, ' mistakes to avoid — Acme Blog'),
                                    concat('How we think about ', t, ' — Acme Blog'),
                                    concat('The future of ', t, ' — Acme Blog')], topics)) AS blog_titles,
        arrayFlatten(arrayMap((t, i) -> arrayMap(x -> map('topic', t, 'author', authors[(i + x) % 4 + 1]), range(5)),
                              topics, range(length(topics)))) AS blog_props,
        arrayConcat(['/'], arrayFlatten(arrayMap(sct -> arrayMap(a -> concat('/', sct, '/', a), help_articles), help_sections))) AS help_paths,
        arrayConcat(['Acme Help Center'],
                    arrayFlatten(arrayMap(sct -> arrayMap(a -> concat(initcap(replaceAll(a, '-', ' ')), ' · ', initcap(sct), ' — Acme Help'),
                                                          help_articles), help_sections))) AS help_titles,
        arrayConcat([no_props], arrayFlatten(arrayMap(sct -> arrayMap(a -> map('section', sct), help_articles), help_sections))) AS help_props,
        arrayConcat(core_paths, arrayMap(x -> concat('/products/', x), product_slugs), blog_paths, help_paths) AS all_paths,
        arrayConcat(arrayWithConstant(length(core_paths) + length(product_slugs) + length(blog_paths), 'https://acme.shop'),
                    arrayWithConstant(length(help_paths), 'https://help.acme.shop')) AS all_origins,
        arrayConcat(core_titles, arrayMap(x -> concat(x, ' — Acme'), product_names), blog_titles, help_titles) AS all_titles,
        arrayConcat(arrayWithConstant(length(core_paths), no_props),
                    arrayMap((c, i) -> map('product_id', concat('SKU-', toString(1000 + i)), 'category', c),
                             product_cats, range(length(product_cats))),
                    blog_props, help_props) AS all_props,
        arrayConcat(range(1, length(core_paths) + 1),
                    arraySort(i -> cityHash64('acme-rank', all_paths[i], all_origins[i]),
                              range(length(core_paths) + 1, length(all_paths) + 1))) AS rank_order
      SELECT
        arrayMap(i -> all_paths[i], rank_order) AS page_path,
        arrayMap(i -> all_origins[i], rank_order) AS page_origin,
        arrayMap(i -> all_titles[i], rank_order) AS page_title,
        arrayMap(i -> all_props[i], rank_order) AS page_props,
        product_slugs, product_names, product_cents
    )
  )) AS pages,
  length(pages.1) AS page_count,
  length(pages.5) AS product_count,
  -- where an event happens: pages by rank, then product pages (add_to_cart), then per event code
  (SELECT arrayConcat(pages.1, pages.8, ['', '', '/search', '', '/checkout', '/signup'])) AS ext_paths,
  (SELECT arrayConcat(pages.2, arrayWithConstant(product_count + 6, 'https://acme.shop'))) AS ext_origins,
  (SELECT arrayConcat(pages.3, pages.9, ['', '', 'Search — Acme', '', 'Checkout — Acme', 'Create your account — Acme'])) AS ext_titles,
  ['screen_view', 'button_click', 'search', 'add_to_cart', 'purchase', 'signup'] AS ev_names,
  -- name of an ordinary (not first, not funnel) event: 83% screen_view, 7% button_click, 5% search, 5% add_to_cart
  (SELECT arrayFlatten([arrayWithConstant(830, 1), arrayWithConstant(70, 2), arrayWithConstant(50, 3), arrayWithConstant(50, 4)])) AS ev_lut,
  ['backpack', 'rain jacket', 'headphones', 'gift card', 'watch', 'wallet', 'desk lamp', 'standing desk', 'bottle',
   'sneakers', 'sale', 'return policy'] AS search_terms,
  ['hero_cta', 'add_to_wishlist', 'newsletter_subscribe', 'size_guide', 'nav_menu', 'chat_open'] AS buttons,
  ['header', 'hero', 'sidebar', 'footer'] AS button_locations,
  ['free', 'free', 'free', 'plus', 'plus', 'pro'] AS plans,
  ['email', 'email', 'google', 'apple'] AS signup_methods
SELECT
  reinterpretAsUUID(concat(reinterpretAsFixedString(bitOr(bitAnd(cityHash64(seed, n, 50), 0xFFFFFFFFFFFF0FFF), 0x4000)),
                           reinterpretAsFixedString(bitOr(bitAnd(cityHash64(seed, n, 51), 0x3FFFFFFFFFFFFFFF), 0x8000000000000000)))) AS id,
  {projectId:String} AS project_id,
  ev_names[ev] AS name,
  lower(concat(hex(reinterpretAsFixedString(cityHash64(seed, vkey, 27))),
               hex(reinterpretAsFixedString(cityHash64(seed, vkey, 28))))) AS device_id,
  if(identified, concat('user_', lower(hex(reinterpretAsFixedString(cityHash64(seed, 7, vkey))))), device_id) AS profile_id,
  toString(reinterpretAsUUID(concat(reinterpretAsFixedString(bitOr(bitAnd(cityHash64(seed, s, 52), 0xFFFFFFFFFFFF0FFF), 0x4000)),
                                    reinterpretAsFixedString(bitOr(bitAnd(cityHash64(seed, s, 53), 0x3FFFFFFFFFFFFFFF), 0x8000000000000000))))) AS session_id,
  fromUnixTimestamp64Milli(sess_start + off_ms, 'UTC') AS created_at,
  ext_paths[loc] AS path,
  ext_origins[loc] AS origin,
  ext_titles[loc] AS title,
  ref_urls.1[ref_urls.2[rf] + cityHash64(seed, s, 14) % ref_urls.3[rf] + 1] AS referrer,
  ref_name[rf] AS referrer_name,
  ref_type[rf] AS referrer_type,
  utm_sources[utm_kind * 12 + rf] AS utm_source,
  utm_mediums[utm_kind + 1] AS utm_medium,
  utm_campaigns.1[utm_campaigns.2[utm_kind + 1] + utm_h % utm_campaigns.3[utm_kind + 1] + 1] AS utm_campaign,
  utm_terms.1[utm_terms.2[utm_kind + 1] + intDiv(utm_h, 7) % utm_terms.3[utm_kind + 1] + 1] AS utm_term,
  utm_contents.1[utm_contents.2[utm_kind + 1] + intDiv(utm_h, 11) % utm_contents.3[utm_kind + 1] + 1] AS utm_content,
  city_country[ci] AS country,
  city_region[ci] AS region,
  city_name[ci] AS city,
  city_latlon.1[ci] AS latitude,
  city_latlon.2[ci] AS longitude,
  dev_device[dv] AS device,
  dev_brand[dv] AS brand,
  dev_model[dv] AS model,
  br_name[bw] AS browser,
  versions.1[(bw = 5) * osv_idx + (bw != 5) * (versions.2[bw] + cityHash64(seed, vkey, 26) % versions.3[bw] + 1)] AS browser_version,
  dev_os[dv] AS os,
  versions.1[osv_idx] AS os_version,
  toUInt32((ev = 1) * ((k + 1 < slen) * (next_off_ms - off_ms) + (k + 1 >= slen) * (2000 + cityHash64(seed, s, k, 36) % 58000))) AS duration,
  (ev = 5) * pages.7[pr] * qty AS revenue,
  arrayResize([org_names[cityHash64(seed, vkey, 30) % 250 + 1]], toUInt8(identified AND cityHash64(seed, vkey, 29) % 100 < 50)) AS groups,
  multiIf(ev = 1, pages.4[pg],
          ev = 2, map('button', buttons[prop_h % length(buttons) + 1],
                      'location', button_locations[intDiv(prop_h, 7) % length(button_locations) + 1]),
          ev = 3, map('query', search_terms[prop_h % length(search_terms) + 1],
                      'results', toString(intDiv(prop_h, 13) % 48)),
          ev = 4, map('product_id', pages.11[pr], 'product', pages.6[pr],
                      'price', pages.10[pr], 'quantity', toString(qty), 'currency', city_currency[ci]),
          ev = 5, map('order_id', concat('ORD-', substring(hex(reinterpretAsFixedString(cityHash64(seed, s, 35))), 1, 10)),
                      'product_id', pages.11[pr], 'price', pages.10[pr], 'quantity', toString(qty), 'currency', city_currency[ci]),
          map('plan', plans[prop_h % length(plans) + 1], 'method', signup_methods[intDiv(prop_h, 7) % length(signup_methods) + 1])
  ) AS properties,
  'web' AS sdk_name,
  sdk_versions[cityHash64(seed, vkey, 31) % length(sdk_versions) + 1] AS sdk_version,
  NULL AS imported_at
FROM
(
  -- ------------------------------------------------------------------ layer B: visitor, session, event keys
  SELECT
    n, s, k, slen,
    -- visitor: 45% of sessions come from the returning pool (skewed: low pool numbers return often),
    -- the others are one-time visitors; 60% of pool and 8% of one-time visitors are identified
    cityHash64(seed, s, 10) % 100 < 45 AS returning,
    toUInt64(pool_size * pow(cityHash64(seed, s, 11) / two64, 1.4)) AS pool_idx,
    cityHash64(seed, 1 + returning, returning * pool_idx + (1 - returning) * s) AS vkey,
    cityHash64(seed, 3, vkey) % 1000 < 80 + 520 * returning AS identified,
    -- session city: the visitor's home city, 5% of sessions elsewhere (travel)
    city_lut[cityHash64(seed, vkey, 21) % length(city_lut) + 1] AS home_ci,
    toUInt8(home_ci + (cityHash64(seed, s, 22) % 100 < 5) * (toInt16(city_lut[cityHash64(seed, s, 23) % length(city_lut) + 1]) - home_ci)) AS ci,
    -- session time: mean gap, duration, start on the local day/night curve, inside [end - days, end)
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
    reg_start + toInt64(s < 6) * (greatest(end_ms - 1 - sess_dur - toInt64(cityHash64(seed, s, 45) % 240000), win_start) - reg_start) AS sess_start,
    -- event offset in the session (increasing in k: k + 0.8 u - 0.4 mean gaps) and of the next event
    (k > 0) * toInt64(gap_ms * (k + 0.8 * (cityHash64(seed, s, toUInt32(k), 40) / two64) - 0.4)) AS off_ms,
    (k + 1 < slen) * toInt64(gap_ms * ((k + 1) + 0.8 * (cityHash64(seed, s, toUInt32(k + 1), 40) / two64) - 0.4)) AS next_off_ms,
    -- visitor device, os version, browser
    dev_lut[cityHash64(seed, vkey, 20) % length(dev_lut) + 1] AS dv,
    dev_osv.2[dv] + cityHash64(seed, vkey, 24) % dev_osv.3[dv] + 1 AS osv_idx,
    dev_browsers.1[dev_browsers.2[dv] + cityHash64(seed, vkey, 25) % dev_browsers.3[dv] + 1] AS bw,
    -- session source
    ref_lut[cityHash64(seed, s, 13) % length(ref_lut) + 1] AS rf,
    cityHash64(seed, s, 15) % 100 AS utm_u,
    (rf = 2 AND utm_u < 30) * 1 + (rf >= 5 AND rf <= 8 AND utm_u < 45) * 2 + (rf = 1 AND utm_u < 12) * 3
      + (rf >= 9 AND utm_u < 20) * 4 AS utm_kind,
    cityHash64(seed, s, 16) AS utm_h,
    -- session intent (8% buy at the end, 6% sign up at the end), product and quantity
    cityHash64(seed, s, 17) % 1000 AS intent,
    least(toUInt32(exp(cityHash64(seed, s, 18) / two64 * log(product_count + 1))), product_count) AS pr,
    1 + (cityHash64(seed, s, 19) % 100 >= 70) + (cityHash64(seed, s, 19) % 100 >= 90) AS qty,
    -- event name: 1 screen_view, 2 button_click, 3 search, 4 add_to_cart, 5 purchase, 6 signup (ev_names);
    -- the first event is a screen_view; buyers end with add_to_cart + purchase, sign-ups with signup;
    -- other events follow ev_lut
    (intent < 80 AND slen >= 3) * (5 * (k + 1 = slen) + 4 * (k + 2 = slen))
      + (intent >= 80 AND intent < 140 AND slen >= 2) * 6 * (k + 1 = slen) AS ev_special,
    toUInt8((k = 0) + (k != 0) * (ev_special + (ev_special = 0) * ev_lut[cityHash64(seed, s, k, 32) % 1000 + 1])) AS ev,
    -- page rank, Zipf-like: P(rank r) ~ 1 / r
    least(toUInt32(exp(cityHash64(seed, s, k, 33) / two64 * log(page_count + 1))), page_count) AS pg,
    -- where the event happened (index into ext_*): screen_view and button_click on page pg,
    -- add_to_cart on product pr's page, the others on their fixed page
    (ev <= 2) * pg + (ev = 4) * (page_count + pr) + (ev IN (3, 5, 6)) * (page_count + product_count + ev) AS loc,
    cityHash64(seed, s, k, 34) AS prop_h
  FROM
  (
    -- ---------------------------------------------------------------- layer A: row -> session, position
    SELECT
      number AS n,
      intDiv(n, T) AS grp,
      cityHash64(seed, 1002, grp) % P AS perm,
      perm * T + (n % T) + 1 AS slot,
      grp * K + layout.2[slot] AS s,
      toUInt32(layout.3[slot]) AS k,
      least(toUInt64(layout.4[slot]), toUInt64(total + k - n)) AS slen
    FROM numbers({first:UInt64}, {count:UInt64})
  )
)
SETTINGS max_block_size = 65536

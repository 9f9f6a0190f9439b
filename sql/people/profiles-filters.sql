-- @name people.profiles_filters
-- @returns fragment: keeps the profiles that every filter keeps: each filter on the text it reads (a
--   property's value, '' when the key is absent, or a column's) and its values (its slice of the flat list)
AND arrayAll(
  (text, operator, values) -> multiIf(
    operator = 'is', has(values, text),
    operator = 'isNot', NOT has(values, text),
    operator = 'contains', arrayExists(value -> positionCaseInsensitiveUTF8(text, value) > 0, values),
    operator = 'doesNotContain', NOT arrayExists(value -> positionCaseInsensitiveUTF8(text, value) > 0, values),
    operator = 'startsWith', arrayExists(value -> startsWith(lowerUTF8(text), lowerUTF8(value)), values),
    operator = 'endsWith', arrayExists(value -> endsWith(lowerUTF8(text), lowerUTF8(value)), values),
    operator = 'isNull', text = '',
    text != ''),
  arrayMap(
    field -> if(startsWith(field, 'properties.'), properties[substring(field, 12)],
      multiIf(field = 'email', email, field = 'first_name', first_name, field = 'last_name', last_name, id)),
    {filterFields:Array(String)}),
  {filterOperators:Array(String)},
  arrayMap((first, count) -> arraySlice({filterValues:Array(String)}, first, count), {filterFirsts:Array(UInt32)}, {filterCounts:Array(UInt32)}))

-- @name people.profiles_properties
-- @returns fragment: keeps the profiles whose property of each of `propertyKeys` equals its value in
--   `propertyValues` (`?browser=Firefox`)
AND arrayAll((key, value) -> properties[key] = value, {propertyKeys:Array(String)}, {propertyValues:Array(String)})

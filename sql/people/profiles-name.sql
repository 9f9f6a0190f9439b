-- @name people.profiles_name
-- @returns fragment: keeps the profiles where each of `nameTokens` is in the id, the email, the first name,
--   the last name or both names, ignoring case
AND arrayAll(
  token -> positionCaseInsensitiveUTF8(id, token) > 0
    OR positionCaseInsensitiveUTF8(email, token) > 0
    OR positionCaseInsensitiveUTF8(first_name, token) > 0
    OR positionCaseInsensitiveUTF8(last_name, token) > 0
    OR positionCaseInsensitiveUTF8(concat(first_name, ' ', last_name), token) > 0,
  {nameTokens:Array(String)})

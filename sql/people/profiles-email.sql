-- @name people.profiles_email
-- @returns fragment: keeps the profiles whose email contains `email`, ignoring case
AND positionCaseInsensitiveUTF8(email, {email:String}) > 0

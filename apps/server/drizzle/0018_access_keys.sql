-- 0018_access_keys: reserved for issue 14; the area's tables are written here.
SELECT 1;

-- 0017_shares: reserved for issue 14; the area's tables are written here.
SELECT 1;

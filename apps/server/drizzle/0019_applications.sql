-- 0019_applications: reserved for issue 14; the area's tables are written here.
SELECT 1;

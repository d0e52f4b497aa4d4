-- 0026_scenes: reserved for issue 17; the area's tables are written here.
SELECT 1;

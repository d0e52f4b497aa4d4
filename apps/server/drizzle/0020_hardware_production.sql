-- 0020_hardware_production: reserved for issue 15; the area's tables are written here.
SELECT 1;

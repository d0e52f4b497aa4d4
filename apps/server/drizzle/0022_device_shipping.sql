-- 0022_device_shipping: reserved for issue 15; the area's tables are written here.
SELECT 1;

-- 0025_modbus_polling: reserved for issue 16; the area's tables are written here.
SELECT 1;

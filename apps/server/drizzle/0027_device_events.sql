-- 0027_device_events: reserved for issue 15 (thing model events); the tables are written here.
SELECT 1;

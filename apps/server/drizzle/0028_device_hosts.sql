-- 0028_device_hosts: reserved; the module that owns it replaces this placeholder.
SELECT 1;

-- 0030_forwarding: reserved; the module that owns it replaces this placeholder.
SELECT 1;
